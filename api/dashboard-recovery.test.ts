import assert from 'node:assert/strict';
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
import { Order } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { waitForMail } from '../integrations/mail/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * Finance sees recovery (headless Chromium): a declined renewal explained in words, what
 * "Retry now" did said plainly, test-clock subscriptions marked, and a subscription dunning
 * gave up on canceled for "payment failed" with the date of its last attempt.
 */
describe('dashboard: finance sees failed renewals recover (browser)', () => {
  const suite = dashboardBrowserSuite();

  const monthly = (seller: Seller, name: string, priceAmount: number) =>
    seller.polar.products.create({
      name,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount }],
    });

  it('explains a declined renewal, says what retry now did, and marks the test clock', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Recovery Works',
    });
    const team = await monthly(seller, 'Team', 2500);
    const subscriptionId = await declinedRenewal(suite.api, seller, team.id, {
      startAt: '2027-04-01T08:00:00Z',
      renewAt: '2027-05-01T08:00:00Z',
    });

    await page.goto(`${suite.api.url}/failed-renewals`);
    const row = page.getByRole('row').filter({ hasText: 'Team' });
    // The bank's reason in words; Stripe's code only beside it.
    await row.getByText('The card has insufficient funds.').waitFor();
    await row.getByText('test clock').waitFor();
    await row.getByText(/last tried/).waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-failed-renewals-reasons.png'),
      fullPage: true,
    });

    // The card still has no funds: the retry is declined, and the page says why.
    await row.getByRole('button', { name: /^Retry now/ }).click();
    await page
      .getByRole('dialog', { name: 'Retry the payment now?' })
      .getByRole('button', { name: 'Retry now' })
      .click();
    const notice = page.getByRole('status').filter({ hasText: 'The retry was declined.' });
    await notice.waitFor({ timeout: 30_000 });
    assert.match(
      (await notice.textContent()) ?? '',
      /The card has insufficient funds\. The subscription stays past due; scheduled retries go on as planned\./,
    );
    assert.ok(!(await notice.textContent())?.includes('insufficient_funds'));

    await page.goto(`${suite.api.url}/subscriptions/${subscriptionId}`);
    await page.getByText('test clock', { exact: true }).waitFor();
    await page
      .getByText(/The last renewal was not paid: The card has insufficient funds\./)
      .waitFor();
    await page.getByRole('button', { name: 'Send update-card link' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The update-card link was mailed to' })
      .waitFor();
    await page.close();
  });

  it('mails the customer the update-card link, and marks the renewal they then paid', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Link Works',
    });
    const studio = await monthly(seller, 'Studio', 1200);
    const subscriptionId = await declinedRenewal(suite.api, seller, studio.id, {
      startAt: '2027-08-01T08:00:00Z',
      renewAt: '2027-09-01T08:00:00Z',
    });
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const { email } = await seller.polar.customers.get({ id: customerId });

    await page.goto(`${suite.api.url}/failed-renewals`);
    const row = page.getByRole('row').filter({ hasText: 'Studio' });
    await row.getByRole('button', { name: /^Send update-card link/ }).click();
    await page
      .getByRole('dialog', { name: 'Send the update-card link?' })
      .getByRole('button', { name: 'Send link' })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `The update-card link was mailed to ${email}` })
      .waitFor();
    await waitForMail({ to: email, subject: /^Update your payment method/ });

    // The customer pays the open renewal with a new card from the portal.
    const [renewal] = await suite.api.orm.em
      .fork()
      .find(Order, { subscription: subscriptionId, billingReason: 'subscription_cycle' });
    const session = await seller.polar.customerSessions.create({ customerId });
    const paid = await seller.polar.customerPortal.orders.confirmRetryPayment(
      { customerSession: session.token },
      { id: renewal?.id ?? '', customerOrderConfirmPayment: { paymentMethodId: testCards.visa } },
    );
    assert.equal(paid.status, 'succeeded');

    await page.reload();
    const recovered = page
      .getByRole('table', { name: 'Recently recovered renewals' })
      .getByRole('row')
      .filter({ hasText: email });
    await recovered.getByText('Recovered by the customer').waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'Retry now' }).count(), 0);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-renewal-recovered.png'),
      fullPage: true,
    });
    await page.goto(`${suite.api.url}/subscriptions/${subscriptionId}`);
    await page.getByText('Recovered by the customer').first().waitFor();
    await page.close();
  });

  it('shows a subscription dunning gave up on as canceled for a failed payment, with its last attempt', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Dunning Works',
    });
    const basic = await monthly(seller, 'Basic', 1000);
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      suite.api,
      seller,
      basic.id,
      '2027-06-01T08:00:00Z',
    );
    await saveCard(suite.api, subscriptionId, testCards.insufficientFunds);
    await advanceTestClock(suite.api, seller, clockId, '2027-07-01T08:00:00Z');
    await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.status === 'past_due',
      { what: `subscription ${subscriptionId} past due`, timeoutMs: 90_000 },
    );
    // Past the last retry (21 days after the first failure): dunning ends it.
    await advanceTestClock(suite.api, seller, clockId, '2027-07-25T08:00:00Z');
    const ended = await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.status === 'canceled',
      { what: `subscription ${subscriptionId} canceled by dunning`, timeoutMs: 90_000 },
    );
    assert.equal(ended.status, 'canceled');

    await page.goto(`${suite.api.url}/subscriptions/${subscriptionId}`);
    const cancellation = page.getByText(/^Payment failed \(last attempt /);
    await cancellation.waitFor();
    assert.match((await cancellation.textContent()) ?? '', /2027/);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-subscription-payment-failed.png'),
      fullPage: true,
    });
    await page.close();
  });
});
