import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { advanceTestClock, subscribeOnTestClock } from '../commerce/subscriptions/testing.ts';
import { callV1 } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The customer page shows the customer's balance and its ledger, and "Add credit" credits it
 * with a reason after confirming, the entry naming who added it (headless Chromium).
 */
describe('dashboard: customer balance (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('adds credit with a reason, after confirming, and lists it in the ledger', async () => {
    const { page, post, tag } = await ownerPage(suite.browser, suite.api.url);
    const customer = await post('/v1/customers/', {
      email: `grace-${tag}@example.com`,
      name: 'Grace Hopper',
    });

    await page.goto(`${suite.api.url}/customers/${customer.id}`);
    const balance = page.getByRole('region', { name: 'Balance' });
    await balance.getByText('No balance entries.').waitFor();
    await balance.getByRole('button', { name: 'Add credit' }).click();
    const form = page.getByRole('form', { name: 'Add credit' });
    await form.getByRole('button', { name: 'Add credit…' }).click();
    await form.getByText('Say why: the entry keeps it.').waitFor();
    await form.getByLabel(/^Amount/).fill('12.50');
    await form.getByLabel(/^Reason/).fill('Late delivery');
    await form.getByRole('button', { name: 'Add credit…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credit?' });
    await dialog.getByRole('button', { name: 'Add credit', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const entry = balance.getByRole('row').filter({ hasText: 'Late delivery' });
    await entry.getByText('$12.50').waitFor();
    await entry.getByText('Adjustment').waitFor();
    // Who added it is kept with the entry and shown: the owner who signed in.
    await entry.getByRole('cell', { name: 'Ada Owner', exact: true }).waitFor();
    const read = await page.request.get(`${suite.api.url}/v1/customers/${customer.id}/balance`);
    assert.deepEqual(await read.json(), { balance: 1250, currency: 'usd' });
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-customer-balance.png'),
      fullPage: true,
    });
  });

  it('shows the balance a renewal used on its order, and the debit in the ledger', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api);
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      suite.api,
      seller,
      plan.id,
      '2027-01-01T00:00:00Z',
    );
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const credited = await callV1(
      suite.api,
      seller.token,
      'POST',
      `/v1/customers/${customerId}/balance/adjustments`,
      { amount: 500, currency: 'usd', reason: 'Goodwill' },
    );
    assert.equal(credited.status, 201, JSON.stringify(credited.body));
    await advanceTestClock(suite.api, seller, clockId, '2027-02-01T00:00:00Z');
    const renewal = await eventually(
      async () =>
        (await seller.polar.orders.list({ customerId })).result.items.find(
          (order) => order.billingReason === 'subscription_cycle' && order.status === 'paid',
        ),
      (order) => order !== undefined,
      { what: 'the paid renewal' },
    );
    assert.ok(renewal);

    await page.goto(`${suite.api.url}/orders/${renewal.id}`);
    const amounts = page.getByRole('region', { name: 'Amounts' });
    const detail = (label: string) =>
      amounts
        .locator('div')
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator('dd');
    await detail('Balance used').getByText('-$5.00').waitFor();
    assert.equal(await detail('Charged').textContent(), '$10.00');
    assert.equal(await detail('Total').textContent(), '$15.00');

    await page.goto(`${suite.api.url}/customers/${customerId}`);
    const balance = page.getByRole('region', { name: 'Balance' });
    const debit = balance.getByRole('row').filter({ hasText: 'Used by an order' });
    await debit.getByText('-$5.00').waitFor();
    await debit.getByRole('link', { name: 'Order' }).waitFor();
    await page.close();
  });
});
