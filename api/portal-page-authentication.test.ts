import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buy } from '../commerce/orders/testing.ts';
import { declinedRenewal } from '../commerce/subscriptions/testing.ts';
import { createSeller } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, screenshotsDir } from './browser-testing.ts';

/**
 * The customer portal with a card that asks for 3-D Secure, in headless Chromium: with no
 * publishable key the page sends the customer to the Stripe simulator's test challenge (the
 * answers' next_action_url), which sends them back to the portal; the portal then finishes what
 * the check was for (the card confirmed, the renewal's payment settled). The usage section, on
 * the way.
 */
describe('customer portal page with 3-D Secure (browser)', () => {
  const suite = dashboardBrowserSuite();

  async function portalOf(customerId: string, seller: Awaited<ReturnType<typeof createSeller>>) {
    const session = await seller.polar.customerSessions.create({ customerId });
    const page = await suite.browser.newPage();
    await page.goto(session.customerPortalUrl);
    await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
    return Object.assign(page, { security: { customerSession: session.token } });
  }

  it('adds a card after the bank’s challenge is completed', async () => {
    const seller = await createSeller(suite.api);
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    const { order } = await buy(suite.api, seller, plan.id);
    assert.ok(order);
    const page = await portalOf(order.customerId, seller);

    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    const cards = page.getByRole('region', { name: 'Payment methods' }).getByRole('listitem');
    await cards.filter({ hasText: '4242' }).waitFor();
    await page.getByRole('button', { name: 'Add a card' }).click();
    const adding = page.getByRole('dialog', { name: 'Add a card' });
    await adding.getByRole('radio', { name: /3220/ }).check();
    await adding.getByRole('button', { name: 'Save card' }).click();
    await page.waitForURL(/\/_simulator\/3ds\/seti_/, { timeout: 30_000 });
    await page.getByText('Save this card for future payments?').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'portal-3ds-challenge.png') });
    await page.getByRole('button', { name: 'Complete' }).click();

    // Back in the portal, on the section it left: the card confirmed and listed.
    await page.getByText('The card was saved.').waitFor({ timeout: 30_000 });
    await cards.filter({ hasText: '3220' }).waitFor();
    assert.ok(page.url().endsWith('#payment-methods'), page.url());
    await page.screenshot({ path: join(screenshotsDir, 'portal-3ds-card.png'), fullPage: true });
    const listed = await seller.polar.customerPortal.customers.listPaymentMethods(
      page.security,
      {},
    );
    assert.deepEqual(listed.result.items.map((method) => method.id).sort(), [
      'pm_card_threeDSecure2Required',
      'pm_card_visa',
    ]);
    await page.close();
  });

  it('says so when the challenge fails, and saves nothing; the card passes a second challenge', async () => {
    const seller = await createSeller(suite.api);
    const plan = await seller.polar.products.create({
      name: 'Basic plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { order } = await buy(suite.api, seller, plan.id);
    assert.ok(order);
    const page = await portalOf(order.customerId, seller);

    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await page.getByRole('button', { name: 'Add a card' }).click();
    const adding = page.getByRole('dialog', { name: 'Add a card' });
    await adding.getByRole('radio', { name: /3220/ }).check();
    await adding.getByRole('button', { name: 'Save card' }).click();
    await page.waitForURL(/\/_simulator\/3ds\/seti_/, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Fail' }).click();

    await page
      .getByRole('alert')
      .getByText(
        'Your card could not be authenticated: it was not saved. Try again, or use another card.',
      )
      .waitFor({ timeout: 30_000 });
    const cards = page.getByRole('region', { name: 'Payment methods' }).getByRole('listitem');
    await cards.filter({ hasText: '4242' }).waitFor();
    assert.equal(await cards.count(), 1);
    await page.screenshot({ path: join(screenshotsDir, 'portal-3ds-failed.png'), fullPage: true });

    // The same card again: a new challenge, passed this time.
    await page.getByRole('button', { name: 'Add a card' }).click();
    await adding.getByRole('radio', { name: /3220/ }).check();
    await adding.getByRole('button', { name: 'Save card' }).click();
    await page.waitForURL(/\/_simulator\/3ds\/seti_/, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.getByText('The card was saved.').waitFor({ timeout: 30_000 });
    await cards.filter({ hasText: '3220' }).waitFor();
    await page.close();
  });

  it('pays a declined renewal with a card whose bank asks for the challenge', async () => {
    const seller = await createSeller(suite.api);
    const plan = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const subscriptionId = await declinedRenewal(suite.api, seller, plan.id, {
      startAt: '2027-03-01T08:00:00Z',
      renewAt: '2027-04-01T08:00:00Z',
    });
    const subscription = await seller.polar.subscriptions.get({ id: subscriptionId });
    const page = await portalOf(subscription.customerId, seller);

    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    const card = page.getByRole('article', { name: 'Team plan' });
    await card.getByRole('button', { name: 'Pay $20.00 now' }).click();
    const paying = page.getByRole('dialog', { name: 'Pay $20.00 for Team plan' });
    await paying.getByRole('button', { name: 'Use a new card' }).click();
    await paying.getByRole('radio', { name: /3220/ }).check();
    await paying.getByRole('button', { name: 'Pay $20.00' }).click();
    await page.waitForURL(/\/_simulator\/3ds\/pi_/, { timeout: 30_000 });
    await page.getByText('Pay 20.00 USD?').waitFor();
    await page.getByRole('button', { name: 'Complete' }).click();

    await page.getByText('Thank you: the payment went through.').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(screenshotsDir, 'portal-3ds-paid.png'), fullPage: true });
    const paid = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(paid.status, 'active');

    // Usage: none on any meter yet, then the events the seller recorded for the customer.
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByText('No usage recorded yet.').waitFor();
    const meter = await seller.polar.meters.create({
      name: 'API calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }],
      },
      aggregation: { func: 'count' },
    });
    const timestamp = new Date(Date.now() - 60_000);
    const customerId = subscription.customerId;
    await seller.polar.events.ingest({
      events: [
        { name: 'api_call', customerId, timestamp },
        { name: 'api_call', customerId, timestamp },
      ],
    });
    await eventually(
      async () => (await seller.polar.customerMeters.list({ customerId })).result.items,
      (items) => items.some((item) => item.meterId === meter.id && item.consumedUnits === 2),
      { what: 'the customer’s API calls counted' },
    );
    await page.reload();
    const usage = page.getByRole('article', { name: 'API calls' });
    await usage.getByText('2 units').first().waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'portal-usage.png'), fullPage: true });
    await page.close();
  });
});
