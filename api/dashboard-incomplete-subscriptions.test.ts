import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  buyerClient,
  buyerDetails,
  settledCheckout,
  testCards,
} from '../commerce/orders/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * An `incomplete` subscription in the dashboard (headless Chromium): its first payment was
 * declined, so it is listed, found by the status filter, and its page offers no plan or seat
 * change until it is paid.
 */
describe('dashboard: incomplete subscriptions (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('lists a subscription whose first payment was declined as incomplete, filtered by status', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Incomplete Works',
    });
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const created = await seller.polar.checkouts.create({ products: [plan.id] });
    await buyerClient(suite.api).checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(testCards.declined),
    });
    const failed = await settledCheckout(seller, created.id, ['failed']);
    assert.ok(failed.subscriptionId, 'the declined checkout left its subscription');

    await page.goto(`${suite.api.url}/subscriptions`);
    await page.getByLabel('Status').selectOption({ label: 'Incomplete' });
    const row = page.getByRole('row').filter({ hasText: 'Monthly plan' });
    await row.getByText('incomplete', { exact: true }).waitFor();
    assert.match(page.url(), /status=incomplete/);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-subscriptions-incomplete.png'),
      fullPage: true,
    });
    await page.getByLabel('Status').selectOption({ label: 'Active' });
    await page.getByText('No subscriptions match these filters.').waitFor();

    await page.goto(`${suite.api.url}/subscriptions/${failed.subscriptionId}`);
    await page.getByRole('heading', { level: 1, name: /^Monthly plan for / }).waitFor();
    await page.getByText('incomplete', { exact: true }).first().waitFor();
    await page.getByRole('region', { name: 'Details' }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'Change plan' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: 'Change seats' }).count(), 0);
    await page.close();
  });
});
