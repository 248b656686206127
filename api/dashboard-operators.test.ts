import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { productWithBenefits } from '../commerce/benefit-grants/testing.ts';
import { buy, buyerDetails, testCards } from '../commerce/orders/testing.ts';
import type { Seller } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The operators' pages in headless Chromium: payments and checkouts of a paid and a declined
 * purchase, license keys with their activations, usage events, and the user's own API keys.
 * Everything shown is set up through the Polar SDK (or the page itself), as a seller would.
 */
describe('dashboard: payments, checkouts, license keys, usage events, API keys (browser)', () => {
  const suite = dashboardBrowserSuite();

  /** The list's count line once it shows `count` rows in all. */
  const totalShown = (page: Page, count: number) =>
    page.getByText(new RegExp(`· ${count} in all$`)).waitFor();

  /**
   * Picks `option` of the list filter `label`, then waits until the URL keeps it as `param`
   * (`value`; null once the filter is cleared): the page's next change starts from there.
   */
  async function pick(
    page: Page,
    label: string,
    option: string,
    param: string,
    value: string | null,
  ) {
    await page.getByRole('combobox', { name: label }).selectOption({ label: option });
    await page.waitForURL((url) => url.searchParams.get(param) === value);
  }

  /** Confirms the open dialog `title` with its button of the same name as its action. */
  async function confirm(page: Page, title: string, action: string) {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.getByRole('button', { name: action, exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  it('lists payments and checkouts, narrows them, and shows a declined and a paid one', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Payment Works',
    });
    const course = await seller.polar.products.create({
      name: 'Course',
      prices: [{ amountType: 'fixed', priceAmount: 3000 }],
    });
    const buyer = buyerDetails();
    const paid = await buy(suite.api, seller, course.id, buyer);
    const declined = await buy(suite.api, seller, course.id, buyerDetails(testCards.declined));
    assert.equal(paid.checkout.status, 'succeeded');
    assert.equal(declined.checkout.status, 'failed');
    assert.ok(paid.order);

    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await totalShown(page, 2);
    const payments = page.getByRole('table', { name: 'Payments' });
    const paidRow = payments.getByRole('row').filter({ hasText: 'succeeded' });
    await paidRow.getByText('Visa').waitFor();
    await paidRow.getByText('$30.00').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-payments.png'), fullPage: true });

    // By status: the declined one alone, with its reason; then its page.
    await pick(page, 'Status', 'Failed', 'status', 'failed');
    await totalShown(page, 1);
    const declinedRow = payments.getByRole('row').filter({ hasText: 'failed' });
    await declinedRow.getByText('generic decline').waitFor();
    await declinedRow.getByRole('link').first().click();
    await page.getByText(/^Declined: generic decline/).waitFor();
    await page.getByRole('link', { name: declined.checkout.id }).waitFor();
    await page.getByRole('link', { name: 'Payments', exact: true }).click();

    // By the buyer's email: the paid one; its page shows the card and links to what it paid.
    await page.getByRole('searchbox', { name: 'Customer email' }).fill(buyer.customerEmail ?? '');
    await page.waitForURL((url) => url.searchParams.get('customer_email') === buyer.customerEmail);
    await totalShown(page, 1);
    await payments.getByRole('row').nth(1).getByRole('link').first().click();
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('Visa').waitFor();
    await details.getByText('4242').waitFor();
    await details.getByRole('link', { name: buyer.customerEmail ?? '' }).waitFor();
    await details.getByRole('link', { name: paid.order.id }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-payment.png'), fullPage: true });

    // The checkout it paid: amounts, status, the order it made and its payment.
    await details.getByRole('link', { name: paid.checkout.id }).click();
    await page.getByRole('heading', { level: 1, name: 'Checkout of Course' }).waitFor();
    const amounts = page.getByRole('region', { name: 'Amounts' });
    await amounts.getByText('$30.00').first().waitFor();
    await page
      .getByRole('table', { name: 'Orders' })
      .getByRole('link', { name: paid.order.invoiceNumber })
      .waitFor();
    await page
      .getByRole('table', { name: 'Payments' })
      .getByRole('row')
      .filter({ hasText: 'succeeded' })
      .waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-checkout.png'), fullPage: true });

    // The checkouts list: both, then the failed one by status.
    await page.getByRole('link', { name: 'Checkouts', exact: true }).click();
    await totalShown(page, 2);
    await pick(page, 'Status', 'Failed', 'status', 'failed');
    await totalShown(page, 1);
    await page.getByRole('table', { name: 'Checkouts' }).getByRole('link').first().click();
    await page.getByText(/^Last payment attempt failed/).waitFor();
    await page.close();
  });

  /** The one key the seller's `benefitId` granted, once the grant workflow made it. */
  const grantedKey = async (seller: Seller, benefitId: string) => {
    const listed = await eventually(
      () => seller.polar.licenseKeys.list({ benefitId }),
      (found) => found.result.items.length === 1,
      { what: 'the license key granted' },
    );
    const [key] = listed.result.items;
    assert.ok(key);
    return key;
  };

  it('filters license keys, deactivates an activation, disables, enables and revokes a key', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Key Works',
    });
    const appLicense = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'App license',
      properties: { prefix: 'APP', activations: { limit: 3, enableCustomerAdmin: false } },
    });
    const pluginLicense = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Plugin license',
      properties: { prefix: 'PLG' },
    });
    await buy(suite.api, seller, (await productWithBenefits(seller, [appLicense.id])).id);
    await buy(suite.api, seller, (await productWithBenefits(seller, [pluginLicense.id])).id);
    const key = await grantedKey(seller, appLicense.id);
    await grantedKey(seller, pluginLicense.id);
    const activate = (label: string) =>
      seller.polar.licenseKeys.activate({
        key: key.key,
        organizationId: seller.organizationId,
        label,
        meta: { hostname: `${label}.local` },
      });
    await activate('laptop');
    await activate('desktop');
    await seller.polar.licenseKeys.validate({
      key: key.key,
      organizationId: seller.organizationId,
      incrementUsage: 2,
    });

    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'License keys', exact: true }).click();
    await totalShown(page, 2);
    await pick(page, 'Benefit', 'App license', 'benefit_id', appLicense.id);
    await totalShown(page, 1);
    await page.getByRole('link', { name: key.displayKey }).click();

    await page.getByRole('heading', { level: 1, name: key.displayKey }).waitFor();
    await page.getByText('2 of 3').waitFor();
    const activations = page.getByRole('table', { name: 'Activations' });
    await activations.getByText('hostname: desktop.local').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-license-key.png'),
      fullPage: true,
    });
    await activations
      .getByRole('row')
      .filter({ hasText: 'laptop' })
      .getByRole('button', { name: 'Deactivate' })
      .click();
    await confirm(page, 'Deactivate?', 'Deactivate');
    await activations.getByRole('row').filter({ hasText: 'laptop' }).waitFor({ state: 'detached' });
    await page.getByText('1 of 3').waitFor();
    const live = await seller.polar.licenseKeys.get({ id: key.id });
    assert.deepEqual(
      live.activations.map((activation) => activation.label),
      ['desktop'],
    );

    // Disabled, enabled again, revoked: each as the API keeps it, usage untouched.
    const subtitle = page.locator('.page-subtitle');
    await page.getByRole('button', { name: 'Disable key' }).click();
    await confirm(page, 'Disable key?', 'Disable key');
    await subtitle.getByText('disabled').waitFor();
    assert.equal((await seller.polar.licenseKeys.get({ id: key.id })).status, 'disabled');
    await page.getByRole('button', { name: 'Enable key' }).click();
    await subtitle.getByText('granted').waitFor();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await confirm(page, 'Revoke key?', 'Revoke key');
    await subtitle.getByText('revoked').waitFor();
    const revoked = await seller.polar.licenseKeys.get({ id: key.id });
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.usage, 2);

    // By status: the revoked key alone.
    await page.getByRole('link', { name: 'License keys', exact: true }).click();
    await pick(page, 'Status', 'Revoked', 'status', 'revoked');
    await totalShown(page, 1);
    await page.getByRole('link', { name: key.displayKey }).waitFor();
    await page.close();
  });

  it('browses usage events by name, source, meter and day, and shows one with its metadata', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Usage Works',
    });
    const externalId = `ext-${randomBytes(4).toString('hex')}`;
    const customer = await seller.polar.customers.create({
      email: `user-${externalId}@example.com`,
      externalId,
    });
    const meter = await seller.polar.meters.create({
      name: 'API calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }],
      },
      aggregation: { func: 'count' },
    });
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await seller.polar.events.ingest({
      events: [
        {
          name: 'api_call',
          customerId: customer.id,
          timestamp: minutesAgo(2),
          metadata: { tokens: 12, model: 'small' },
        },
        { name: 'api_call', customerId: customer.id, timestamp: minutesAgo(1) },
        { name: 'api_call', customerId: customer.id, timestamp: minutesAgo(3 * 24 * 60) },
        { name: 'signup', externalCustomerId: externalId, timestamp: minutesAgo(5) },
      ],
    });

    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Usage events', exact: true }).click();
    await pick(page, 'Source', 'Ingested (user)', 'source', 'user');
    await totalShown(page, 4);
    await pick(page, 'Name', 'signup', 'name', 'signup');
    await totalShown(page, 1);
    const events = page.getByRole('table', { name: 'Usage events' });
    await events.getByRole('link', { name: customer.email }).waitFor();
    await pick(page, 'Name', 'All', 'name', null);

    // The meter's events, then those since yesterday (in the browser's time zone).
    await pick(page, 'Meter', 'API calls', 'meter_id', meter.id);
    await totalShown(page, 3);
    const yesterday = await page.evaluate(() => {
      const day = new Date();
      day.setDate(day.getDate() - 1);
      return day.toLocaleDateString('en-CA');
    });
    await page.getByLabel('From', { exact: true }).fill(yesterday);
    await page.waitForURL((url) => url.searchParams.get('from') === yesterday);
    await totalShown(page, 2);
    const externalCustomer = page.getByRole('searchbox', { name: 'External customer id' });
    await externalCustomer.fill('nobody');
    await page.getByText('No events match these filters.').waitFor();
    await externalCustomer.fill('');
    await page.waitForURL((url) => !url.searchParams.has('external_customer_id'));
    await totalShown(page, 2);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-events.png'), fullPage: true });

    // The oldest of the two is the one with metadata.
    await events
      .getByRole('row')
      .filter({ hasText: 'tokens: 12' })
      .getByRole('link')
      .first()
      .click();
    await page.getByRole('heading', { level: 1, name: 'api_call' }).waitFor();
    const metadata = page.getByRole('region', { name: 'Metadata' });
    await metadata.getByText('tokens').waitFor();
    await metadata.getByText('12', { exact: true }).waitFor();
    await metadata.getByText('"small"').waitFor();
    await page
      .getByRole('region', { name: 'Details' })
      .getByRole('link', { name: customer.email })
      .waitFor();
    await page.close();
  });

  it('creates an API key shown once, disables one and deletes another', async () => {
    const owner = await ownerPage(suite.browser, suite.api.url);
    const { page } = owner;
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByText('No API keys yet.').waitFor();
    await page.getByRole('link', { name: 'access tokens', exact: true }).waitFor();

    const create = async (name: string) => {
      await page.getByRole('textbox', { name: /^Name/ }).fill(name);
      await page
        .getByRole('combobox', { name: /^Expires after/ })
        .selectOption({ label: '30 days' });
      await page.getByRole('button', { name: 'Create API key' }).click();
      const shown = page.getByRole('status').filter({ hasText: 'not shown again' });
      const key = (await shown.locator('code').textContent()) ?? '';
      await shown.getByRole('button', { name: 'Done' }).click();
      return key;
    };
    const deployKey = await create('CI deploys');
    await create('Old script');
    const verified = await owner.post('/api/auth/api-key/verify', { key: deployKey });
    assert.equal(verified.valid, true);
    assert.equal(verified.key.name, 'CI deploys');
    await totalShown(page, 2);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-api-keys.png'), fullPage: true });

    // Disabled on its page: the list's state filter finds it alone, and the API refuses it.
    await page.getByRole('link', { name: 'CI deploys' }).click();
    await page.getByRole('heading', { level: 1, name: 'CI deploys' }).waitFor();
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByRole('button', { name: 'Enable key' }).waitFor();
    const refused = await owner.post('/api/auth/api-key/verify', { key: deployKey });
    assert.equal(refused.valid, false);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await pick(page, 'State', 'Disabled', 'state', 'disabled');
    await totalShown(page, 1);
    await pick(page, 'State', 'All', 'state', null);

    const keys = page.getByRole('table', { name: 'API keys' });
    await keys
      .getByRole('row')
      .filter({ hasText: 'Old script' })
      .getByRole('button', { name: 'Delete API key' })
      .click();
    await confirm(page, 'Delete API key?', 'Delete API key');
    await totalShown(page, 1);
    const listed = await page.request.get(`${suite.api.url}/api/auth/api-key/list`);
    assert.deepEqual(
      ((await listed.json()) as { name: string }[]).map((key) => key.name),
      ['CI deploys'],
    );
    await page.close();
  });
});
