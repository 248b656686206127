import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

// A 1×1 transparent PNG.
const pixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The catalog's product pages in headless Chromium, against the real API. */
describe('dashboard products (browser)', () => {
  const suite = dashboardBrowserSuite();

  /** A page signed in as the owner of a new organization with a benefit and a meter to offer. */
  async function sellerPage(): Promise<Page> {
    const { page, post } = await ownerPage(suite.browser, suite.api.url, {
      organizationName: 'Catalog Works',
    });
    await post('/v1/benefits/', {
      type: 'custom',
      description: 'Priority support',
      properties: { note: 'Write to us any time.' },
    });
    await post('/v1/meters/', {
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    return page;
  }

  it('creates a product with a price and an image, keeps typed values on a refusal, and attaches a benefit', async () => {
    const page = await sellerPage();
    await page.goto(`${suite.api.url}/products`);
    await page.getByText('No products match.').waitFor();
    await page.getByRole('link', { name: 'New product' }).click();
    // The list's "Search names" and "Billing" filters answer these labels until the form is there.
    await page.getByRole('heading', { level: 1, name: 'New product' }).waitFor();

    await page.getByLabel('Name').fill('Compiler licence');
    await page.getByLabel('Billing').selectOption({ label: 'Monthly' });
    await page.getByLabel('Amount (USD)').fill('twelve');
    await page.getByRole('button', { name: 'Create product' }).click();
    // Checked in the browser with the API's rules: the error sits by its field, nothing is lost.
    await page.getByText('Enter an amount such as 12.50.').waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Compiler licence');

    await page.getByLabel('Amount (USD)').fill('0.10');
    await page.getByRole('button', { name: 'Create product' }).click();
    // Below Stripe's smallest charge, the API's limit, said in dollars by the same field.
    const amount = page.getByLabel('Amount (USD)');
    await page.getByText('Enter at least $0.50.').waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-product-form.png'),
      fullPage: true,
    });

    await amount.fill('12.50');
    await page.getByLabel('Images').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: pixelPng,
    });
    await page.getByRole('img', { name: 'logo.png' }).waitFor();
    await page.getByRole('button', { name: 'Create product' }).click();

    await page.getByRole('heading', { level: 1, name: 'Compiler licence' }).waitFor();
    await page.getByText('$12.50').waitFor();
    await page.getByLabel('Attach a benefit').selectOption({ label: 'Priority support (custom)' });
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    await page.getByRole('cell', { name: 'Priority support', exact: true }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-product.png'), fullPage: true });

    // Detaching revokes the benefit from customers: it asks first.
    await page.getByRole('button', { name: 'Detach Priority support' }).click();
    await page
      .getByRole('dialog', { name: 'Detach this benefit?' })
      .getByRole('button', { name: 'Detach benefit' })
      .click();
    await page.getByText('No benefits: buyers get the purchase only.').waitFor();

    await page.getByRole('link', { name: 'Products', exact: true }).first().click();
    await page.getByRole('link', { name: 'Compiler licence' }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-products.png'), fullPage: true });
    await page.close();
  });

  it('creates a benefit inside the new product form, attaches it on save, and picks an existing one while editing', async () => {
    const page = await sellerPage();
    const productBenefits = async (productId: string) => {
      const response = await page.request.get(`${suite.api.url}/v1/products/${productId}`);
      assert.ok(response.ok(), await response.text());
      const product = (await response.json()) as {
        benefits: { description: string; properties: { note?: string | null } }[];
      };
      return product.benefits;
    };
    await page.goto(`${suite.api.url}/products/new`);
    await page.getByLabel('Name').fill('Support plan');
    await page.getByLabel('Billing').selectOption({ label: 'Monthly' });
    await page.getByLabel('Amount (USD)').fill('9');

    // Escape closes the dialog and creates nothing.
    const create = page.getByRole('button', { name: 'Create a new benefit' });
    const dialog = page.getByRole('dialog', { name: 'New benefit' });
    await create.click();
    await dialog.getByLabel('Description').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await create.click();
    await dialog.getByLabel('Description').fill('ab');
    await dialog.getByRole('button', { name: 'Create benefit' }).click();
    // The refusal in the words of api/issues.ts, by its field in the dialog; the product waits.
    await dialog.getByText('Description must be at least 3 characters').waitFor();
    assert.equal(await dialog.getByLabel('Description').getAttribute('aria-invalid'), 'true');
    await page.getByRole('heading', { level: 1, name: 'New product' }).waitFor();

    await dialog.getByLabel('Description').fill('Onboarding call');
    await dialog.getByLabel('Note').fill('Book it at cal.example.');
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-product-new-benefit.png'),
      fullPage: true,
    });
    // Enter submits the dialog's form, not the product's.
    await dialog.getByLabel('Note').press('Enter');
    await dialog.waitFor({ state: 'detached' });
    const chosen = page.getByRole('list', { name: 'Benefits granted with this product' });
    await chosen.getByText('Onboarding call').waitFor();
    assert.equal(
      await page.evaluate('document.activeElement?.textContent'),
      'Create a new benefit',
      'focus is back on the button that opened the dialog',
    );
    await page.getByRole('heading', { level: 1, name: 'New product' }).waitFor();

    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support plan' }).waitFor();
    await page.getByRole('cell', { name: 'Onboarding call', exact: true }).waitFor();
    const productId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    assert.deepEqual(
      (await productBenefits(productId)).map(({ description, properties }) => ({
        description,
        note: properties.note,
      })),
      [{ description: 'Onboarding call', note: 'Book it at cal.example.' }],
    );

    await page.getByRole('link', { name: 'Edit' }).click();
    await page
      .getByLabel('Add an existing benefit')
      .selectOption({ label: 'Priority support (custom)' });
    await page.getByRole('button', { name: 'Add benefit', exact: true }).click();
    await chosen.getByText('Priority support').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support plan' }).waitFor();
    await page.getByRole('cell', { name: 'Priority support', exact: true }).waitFor();
    assert.deepEqual(
      (await productBenefits(productId)).map((benefit) => benefit.description),
      ['Onboarding call', 'Priority support'],
    );
    await page.close();
  });

  it('changes a price by archiving it and adding the new one, and archives the product after confirming', async () => {
    const page = await sellerPage();
    await page.goto(`${suite.api.url}/products/new`);
    await page.getByLabel('Name').fill('Punch cards');
    await page.getByLabel('Billing').selectOption({ label: 'One-time purchase' });
    await page.getByLabel('Amount type').selectOption({ label: 'Pay what you want' });
    await page.getByLabel('Minimum (USD)').fill('5');
    await page.getByLabel('Suggested amount (USD)').fill('10');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Punch cards' }).waitFor();
    await page.getByText('Pay what you want, from $5.00 (suggested $10.00)').waitFor();

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Change', exact: true }).click();
    await page.getByText('Replaces Pay what you want, from $5.00').waitFor();
    await page.getByLabel('Amount type').selectOption({ label: 'Fixed price' });
    await page.getByLabel('Amount (USD)').fill('20');
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-product-edit.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Punch cards' }).waitFor();
    await page.getByText('$20.00').waitFor();
    assert.equal(await page.getByText('Pay what you want').count(), 0, 'the old price is archived');

    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive Punch cards?' });
    await dialog.getByRole('button', { name: 'Archive product' }).click();
    await page.getByText('archived', { exact: true }).waitFor();

    await page.goto(`${suite.api.url}/products?is_archived=false`);
    await page.getByText('No products match.').waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Archived' });
    await page.getByRole('link', { name: 'Punch cards' }).waitFor();
    await page.close();
  });

  it('offers metered prices on recurring products only', async () => {
    const page = await sellerPage();
    await page.goto(`${suite.api.url}/products/new`);
    await page.getByLabel('Name').fill('Analytical API');
    await page.getByLabel('Billing').selectOption({ label: 'One-time purchase' });
    await page.getByLabel('Amount type').selectOption({ label: 'Metered, per unit' });
    await page.getByLabel('Meter').selectOption({ label: 'API calls' });
    await page.getByLabel('Unit amount (cents)').fill('0.5');
    await page.getByLabel('Cap per period (USD)').fill('100');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByText('Metered pricing is not supported on one-time products.').waitFor();

    await page.getByLabel('Billing').selectOption({ label: 'Monthly' });
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Analytical API' }).waitFor();
    await page.getByText('0.5¢ (USD) per unit of API calls, capped at $100.00').waitFor();
    await page.close();
  });
});
