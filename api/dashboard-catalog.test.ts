import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/** The catalog's discount, benefit, custom field, meter and checkout link pages in Chromium. */
describe('dashboard catalog (browser)', () => {
  const suite = dashboardBrowserSuite();

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(screenshotsDir, `dashboard-${name}.png`), fullPage: true });

  it('creates a repeating discount once its months are given, and deletes it after confirming', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/discounts`);
    await page.getByText('No discounts match.').waitFor();
    await page.getByRole('link', { name: 'New discount' }).click();
    await page.getByLabel('Name').fill('Launch week');
    await page.getByLabel('Percent off').fill('15');
    await page.getByLabel('Duration').selectOption('repeating');
    await page.getByLabel('Code').fill('LAUNCH15');
    await page.getByRole('button', { name: 'Create discount' }).click();
    // The API's own schema, run in the browser: the error sits by its field, nothing is lost.
    await page.getByText('`duration_in_months` is required').waitFor();
    assert.equal(await page.getByLabel('Code').inputValue(), 'LAUNCH15');
    await screenshot(page, 'discount-form');

    await page.getByLabel('Months').fill('3');
    await page.getByRole('button', { name: 'Create discount' }).click();
    const row = page.getByRole('row', { name: /Launch week/ });
    await row.getByText('3 months').waitFor();
    await row.getByText('15%').waitFor();
    await screenshot(page, 'discounts');

    await row.getByRole('link', { name: 'Launch week' }).click();
    await page.getByRole('button', { name: 'Delete discount' }).click();
    await page
      .getByRole('dialog', { name: 'Delete discount?' })
      .getByRole('button', { name: 'Delete discount' })
      .click();
    await page.getByText('No discounts match.').waitFor();
    await page.close();
  });

  it('creates a license key benefit with its activation limit and shows its grants', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/benefits/new`);
    await page.getByLabel('Type').selectOption('license_keys');
    await page.getByLabel('Description').fill('Compiler key');
    await page.getByLabel('Key prefix').fill('CMP');
    await page.getByLabel('Limit activations').check();
    await page.getByLabel('Activations allowed').fill('99');
    await page.getByRole('button', { name: 'Create benefit' }).click();
    await page.getByText('At most 50 activations.').waitFor();

    await page.getByLabel('Activations allowed').fill('3');
    await page.getByRole('button', { name: 'Create benefit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Compiler key' }).waitFor();
    await page.getByText('{"limit":3,"enable_customer_admin":false}').waitFor();
    await page.getByText('No customer has this benefit yet.').waitFor();
    await screenshot(page, 'benefit');
    await page.close();
  });

  it('refuses a select custom field whose options repeat a value, next to the option', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/custom-fields/new`);
    await page.getByLabel('Type').selectOption('select');
    await page.getByLabel('Name').fill('Team size');
    await page.getByLabel('Slug').fill('team_size');
    await page.getByLabel('Option 1 value').fill('small');
    await page.getByLabel('Option 1 label').fill('1 to 10');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByLabel('Option 2 value').fill('small');
    await page.getByLabel('Option 2 label').fill('11 or more');
    await page.getByRole('button', { name: 'Create custom field' }).click();
    await page.getByText('Option values must be unique.').waitFor();
    assert.equal(await page.getByLabel('Option 2 value').getAttribute('aria-invalid'), 'true');

    await page.getByLabel('Option 2 value').fill('large');
    await page.getByRole('button', { name: 'Create custom field' }).click();
    await page
      .getByRole('row', { name: /Team size/ })
      .getByText('team_size')
      .waitFor();
    await screenshot(page, 'custom-fields');
    await page.close();
  });

  it('creates a meter with a filter clause, shows its usage and archives it after confirming', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/meters/new`);
    await page.getByLabel('Name').fill('Tokens');
    await page.getByRole('textbox', { name: /^Value/ }).fill('completion');
    await page.getByLabel('Aggregation').selectOption('sum');
    await page.getByLabel('Aggregated property').fill('tokens');
    await page.getByRole('button', { name: 'Create meter' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tokens' }).waitFor();
    await page.getByText('name equals "completion"').waitFor();
    await page.getByText('sum of tokens').waitFor();
    await page.getByText('No usage in this period.').waitFor();
    await screenshot(page, 'meter');

    await page.getByRole('button', { name: 'Archive meter' }).click();
    await page
      .getByRole('dialog', { name: 'Archive meter?' })
      .getByRole('button', { name: 'Archive meter' })
      .click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor();
    await page.close();
  });

  it('creates a checkout link for a product and copies its URL', async () => {
    const { page, post } = await ownerPage(suite.browser, suite.api.url);
    await post('/v1/products/', {
      name: 'Slide rule',
      prices: [{ amount_type: 'fixed', price_amount: 900, price_currency: 'usd' }],
    });
    await suite.browser.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: suite.api.url,
    });
    await page.goto(`${suite.api.url}/checkout-links/new`);
    await page.getByLabel('Success URL').fill('not a url');
    await page.getByRole('button', { name: 'Create checkout link' }).click();
    // No product chosen and a malformed URL: both said by their fields.
    await page.locator('#products-error').waitFor();
    await page.locator('#field-success_url-error').waitFor();

    await page.getByLabel('Slide rule').check();
    await page.getByLabel('Success URL').fill('https://example.com/thanks');
    await page.getByLabel('Label').fill('Newsletter');
    await page.getByRole('button', { name: 'Create checkout link' }).click();
    const row = page.getByRole('row', { name: /Newsletter/ });
    await row.getByRole('button', { name: 'Copy URL' }).click();
    await row.getByText('Copied').waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    assert.match(copied, /\/v1\/checkout-links\/.+\/redirect$/);
    await screenshot(page, 'checkout-links');
    await page.close();
  });
});
