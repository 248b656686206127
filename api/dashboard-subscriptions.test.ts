import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { testCards } from '../commerce/orders/testing.ts';
import {
  advanceTestClock,
  declinedRenewal,
  saveCard,
  subscribeOnTestClock,
} from '../commerce/subscriptions/testing.ts';
import type { Seller } from '../commerce/testing.ts';
import { Subscription } from '../db/entities/index.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The subscription and failed-renewal pages in headless Chromium. Subscriptions start through
 * the API on test clocks (their time is known, so the proration preview is exact); the
 * dashboard's API is also the commerce test API, and receives the Stripe simulator's webhooks.
 */
describe('dashboard: subscriptions and failed renewals (browser)', () => {
  const suite = dashboardBrowserSuite();

  const signedInSeller = () =>
    sellerPage(suite.browser, suite.api.url, suite.api, { organizationName: 'Renewal Works' });

  const monthly = (seller: Seller, name: string, priceAmount: number) =>
    seller.polar.products.create({
      name,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount }],
    });

  it('changes the plan after previewing its proration, then cancels at period end and undoes it', async () => {
    const { page, seller } = await signedInSeller();
    const basic = await monthly(seller, 'Basic', 1000);
    const pro = await monthly(seller, 'Pro', 3000);
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      suite.api,
      seller,
      basic.id,
      '2027-04-01T08:00:00Z',
    );
    // Half of the 30-day period left: half of each price is prorated.
    await advanceTestClock(suite.api, seller, clockId, '2027-04-16T08:00:00Z');

    await page.goto(`${suite.api.url}/subscriptions`);
    await page.getByRole('row').filter({ hasText: 'Basic' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Basic for / }).waitFor();
    // The page knows the clock's time: the preview prorates at it.
    await page.getByRole('region', { name: 'Period' }).getByText('Test clock at').waitFor();
    // The first period, paid at checkout, is billed too (the workflow bills renewals only).
    const billed = page.getByRole('table', { name: 'Billed periods' });
    const firstPeriod = billed.getByRole('row').filter({ hasText: 'paid' });
    await firstPeriod.getByRole('link', { name: 'View order' }).waitFor();
    assert.equal(await billed.getByRole('row').count(), 2);
    await page.getByLabel(/^New product/).selectOption({ label: 'Pro' });
    await page.getByLabel(/^Proration/).selectOption('prorate');
    const preview = page.getByRole('table', { name: 'Proration preview' }).first();
    const line = (name: RegExp) => preview.getByRole('row', { name });
    await line(/^Unused time on Basic/)
      .getByText('-$5.00')
      .waitFor();
    await line(/^Remaining time on Pro/)
      .getByText('$15.00')
      .waitFor();
    await line(/^Added to the next renewal/)
      .getByText('$10.00')
      .waitFor();
    await line(/^Charged now/)
      .getByText('$0.00')
      .waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-subscription.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Review change' }).click();
    await page
      .getByRole('dialog', { name: 'Move to Pro?' })
      .getByRole('button', { name: 'Change plan' })
      .click();
    await page.getByRole('heading', { level: 1, name: /^Pro for / }).waitFor();
    const changed = await suite.api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);
    assert.equal(changed.product.id, pro.id);
    assert.deepEqual(
      changed.pendingItems.map((item) => item.amount),
      [-500, 1500],
      'the server prorated as previewed',
    );

    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel at period end?' });
    await dialog.getByLabel(/^Reason/).selectOption({ label: 'Too expensive' });
    await dialog.getByRole('button', { name: 'Cancel at period end' }).click();
    const keep = page.getByRole('button', { name: 'Keep subscription' });
    await keep.waitFor();
    const canceled = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(canceled.cancelAtPeriodEnd, true);
    assert.equal(canceled.customerCancellationReason, 'too_expensive');
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-subscription-canceling.png') });
    await keep.click();
    await page.getByRole('button', { name: 'Cancel at period end' }).waitFor();
    const kept = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(kept.cancelAtPeriodEnd, false);
    await page.close();
  });

  it('shows the seats of a seat-based subscription, adds seats after previewing their proration, and exports the subscriptions', async () => {
    const { page, seller } = await signedInSeller();
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const team = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'seat_based', pricePerSeat: 3100 }],
    });
    // January has 31 days: on the 22nd, 10 of them are left, and 3100 a seat prorates to the cent.
    const { subscriptionId, clockId, email } = await subscribeOnTestClock(
      suite.api,
      seller,
      team.id,
      '2027-01-01T00:00:00Z',
      2,
    );
    await advanceTestClock(suite.api, seller, clockId, '2027-01-22T00:00:00Z');

    await page.goto(`${suite.api.url}/subscriptions/${subscriptionId}`);
    await page.getByRole('heading', { level: 1, name: /^Team plan for / }).waitFor();
    await page.getByText('$62.00 every month for 2 seats').waitFor();
    await page.getByRole('region', { name: 'Period' }).getByText('Test clock at').waitFor();
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('Seats', { exact: true }).waitFor();

    const form = page.getByRole('form', { name: 'Change seats' });
    const seats = form.getByLabel(/^Seats/);
    assert.equal(await seats.inputValue(), '2');
    await form.getByRole('button', { name: 'Review seats' }).click();
    await form.getByText('The subscription has 2 seats already.').waitFor();
    await seats.fill('0');
    await form.getByRole('button', { name: 'Review seats' }).click();
    await form.getByText('Enter a whole number of seats, at least 1.').waitFor();

    await seats.fill('4');
    await form.getByLabel(/^Proration/).selectOption('invoice');
    const preview = form.getByRole('table', { name: 'Proration preview' });
    const line = (name: RegExp) => preview.getByRole('row', { name });
    await line(/^Unused time on Team plan \(2 seats\)/)
      .getByText('-$20.00')
      .waitFor();
    await line(/^Remaining time on Team plan \(4 seats\)/)
      .getByText('$40.00')
      .waitFor();
    await line(/^Charged now/)
      .getByText('$20.00')
      .waitFor();
    await line(/^Each period from now on/)
      .getByText('$124.00')
      .waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-subscription-seats.png'),
      fullPage: true,
    });
    await form.getByRole('button', { name: 'Review seats' }).click();
    await page
      .getByRole('dialog', { name: 'Bill 4 seats?' })
      .getByRole('button', { name: 'Change seats' })
      .click();
    await page.getByText('$124.00 every month for 4 seats').waitFor();
    assert.equal(await seats.inputValue(), '4');

    const changed = await suite.api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);
    assert.deepEqual([changed.seats, changed.amount], [4, 12_400]);
    // `invoice`: the 2000 difference was charged at once, on an order of its own.
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const orders = await seller.polar.orders.list({ customerId });
    const update = orders.result.items.find(
      (order) => order.billingReason === 'subscription_update',
    );
    assert.equal(update?.totalAmount, 2000, 'the server charged what the preview said');

    // The list's export: Polar's subscriptions CSV, the new amount in it.
    await page.getByRole('link', { name: 'Subscriptions', exact: true }).first().click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'subscriptions.csv');
    const [header, row, end] = (await readFile(await download.path(), 'utf8')).split('\r\n');
    assert.equal(header, 'Email,Created At,Active,Product,Price,Currency,Interval');
    const [rowEmail, , ...rest] = (row ?? '').split(',');
    assert.deepEqual([rowEmail, ...rest], [email, 'true', 'Team plan', '124.00', 'usd', 'month']);
    assert.equal(end, '');
    await page.close();
  });

  it('lists a declined renewal with the amount at risk, and retry now recovers it', async () => {
    const { page, seller } = await signedInSeller();
    const team = await monthly(seller, 'Team', 2500);
    const subscriptionId = await declinedRenewal(suite.api, seller, team.id, {
      startAt: '2027-04-01T08:00:00Z',
      renewAt: '2027-05-01T08:00:00Z',
    });

    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Failed renewals', exact: true }).click();
    const totals = page.getByLabel('Failed renewal totals');
    await totals.getByText('$25.00 at risk').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'insufficient_funds' });
    await row.getByText('$25.00').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-failed-renewals.png'),
      fullPage: true,
    });

    // The customer gave a working card: finance charges it at once.
    await saveCard(suite.api, subscriptionId, testCards.visa);
    await row.getByRole('button', { name: /^Retry now/ }).click();
    await page
      .getByRole('dialog', { name: 'Retry the payment now?' })
      .getByRole('button', { name: 'Retry now' })
      .click();
    await page.getByText(/The retry was paid/).waitFor();
    await page.getByText('No failed renewals: all paid.').waitFor();
    const recovered = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(recovered.status, 'active');
    await page.close();
  });
});
