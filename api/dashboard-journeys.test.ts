import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { buyerDetails } from '../commerce/orders/testing.ts';
import { polarClient } from '../commerce/testing.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { eventually } from '../devstack/eventually.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { launchTestBrowser, screenshotsDir, startDashboardApi } from './browser-testing.ts';

/**
 * A seller's journey through the dashboard in headless Chromium, against the real API serving
 * the built dashboard: sign up, create a product with a license key, a buyer pays on the
 * hosted checkout, the seller follows the order, the customer and the checkout's workflow,
 * refunds it, and recovers a declined renewal from the failed renewals page. Each step builds
 * on the one before, so they run in order on one signed-in page.
 */
describe('dashboard journeys (browser)', () => {
  let api: Awaited<ReturnType<typeof startDashboardApi>>;
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  let page: Page;
  const owner = `owner-${randomBytes(5).toString('hex')}@example.com`;
  const buyer = `grace-${randomBytes(5).toString('hex')}@example.com`;

  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startDashboardApi();
    browser = await launchTestBrowser();
    page = await browser.newPage();
    page.on('pageerror', (error) => console.error(`[dashboard] ${error.message}`));
  });

  // A failed step leaves pictures of every open tab, to see what the browser showed.
  afterEach(async (t) => {
    if (!('passed' in t) || t.passed) return;
    const step = t.name.replace(/\W+/g, '-').slice(0, 40);
    const tabs = browser.pages().filter((open) => open.url() !== 'about:blank');
    for (const [index, open] of tabs.entries()) {
      await open.screenshot({
        path: join(screenshotsDir, `journey-step-failed-${step}-${index}.png`),
      });
    }
  });

  after(async () => {
    await browser?.closeAndForget();
    await api?.close();
  });

  const screenshot = (name: string) =>
    page.screenshot({ path: join(screenshotsDir, `journey-${name}.png`), fullPage: true });

  /**
   * The seller's side of what the dashboard does not do (test clocks, a buyer's checkout
   * session), asked of /v1 as the dashboard asks: the session's cookie, from its origin.
   */
  async function v1(method: string, path: string, body?: unknown) {
    const response = await page.request.fetch(`${api.url}${path}`, {
      method,
      headers: { origin: api.url },
      ...(body !== undefined && { data: body }),
    });
    const answer = await response.json();
    assert.ok(response.ok(), `${method} ${path}: ${response.status()} ${JSON.stringify(answer)}`);
    return answer;
  }

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  it('signs up and creates an organization', async () => {
    await page.goto(`${api.url}/`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(owner);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Organization name').fill('Journey Works');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await heading('Journey Works').waitFor();
  });

  it('creates a product with a price and attaches a license-key benefit', async () => {
    await nav('Benefits').click();
    await page.getByRole('link', { name: 'New benefit' }).click();
    await page.getByLabel('Type').selectOption('license_keys');
    await page.getByLabel('Description').fill('App license key');
    await page.getByLabel('Key prefix').fill('APP');
    await page.getByRole('button', { name: 'Create benefit' }).click();
    await heading('App license key').waitFor();

    await nav('Products').click();
    await page.getByRole('link', { name: 'New product' }).click();
    await heading('New product').waitFor();
    await page.getByLabel('Name').fill('Desktop app');
    await page.getByLabel('Billing').selectOption({ label: 'One-time purchase' });
    await page.getByLabel('Amount (USD)').fill('19.00');
    await page.getByRole('button', { name: 'Create product' }).click();
    await heading('Desktop app').waitFor();

    await page
      .getByLabel('Attach a benefit')
      .selectOption({ label: 'App license key (license keys)' });
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    await page
      .getByRole('table', { name: 'Benefits granted with this product' })
      .getByRole('cell', { name: 'App license key', exact: true })
      .waitFor();
    await screenshot('product');
  });

  it('sells it through a checkout link to the hosted checkout, which shows the license key', async () => {
    await nav('Checkout links').click();
    await page.getByRole('link', { name: 'New checkout link' }).click();
    await page.getByLabel('Desktop app').check();
    await page.getByLabel('Label').fill('Launch');
    await page.getByRole('button', { name: 'Create checkout link' }).click();
    await page
      .getByRole('row', { name: /Launch/ })
      .getByRole('link', { name: 'Launch' })
      .click();
    const linkUrl = await page.getByText(/\/v1\/checkout-links\/.+\/redirect$/).textContent();

    const buyerPage = await browser.newPage();
    // The link opens a new checkout session on the hosted page.
    await buyerPage.goto(linkUrl ?? '');
    await buyerPage.waitForURL(/\/checkout\/polar_c_[\w-]+$/);
    // The form is filled once the page shows the checkout it loaded, not before.
    await buyerPage.getByRole('heading', { level: 1, name: 'Desktop app' }).waitFor();
    await buyerPage.getByLabel('Email').fill(buyer);
    await buyerPage.getByLabel('Name').fill('Grace Hopper');
    await buyerPage.getByLabel('Country').selectOption('FR');
    await buyerPage.getByRole('radio', { name: /4242/ }).check();
    await buyerPage.getByRole('button', { name: 'Pay $19.00' }).click();
    await buyerPage.getByTestId('license-key').waitFor({ timeout: 30_000 });
    assert.match((await buyerPage.getByTestId('license-key').textContent()) ?? '', /^APP-/);
    await buyerPage.close();
  });

  it('shows the order, its checkout workflow timeline and the customer state', async () => {
    await nav('Orders').click();
    await heading('Orders').waitFor();
    const row = page.getByRole('row').filter({ hasText: buyer });
    await row.getByText('paid', { exact: true }).waitFor();
    await screenshot('orders');
    await row.getByRole('link', { name: /^[A-Z0-9-]+-\d+$/ }).click();
    await heading(/^Order /).waitFor();
    assert.equal(await page.getByText('Desktop app').first().isVisible(), true);
    // The checkout's workflow, as Temporal's history tells it: started, worked, completed.
    const workflow = page.getByRole('region', { name: 'Workflow' });
    const timeline = workflow.getByRole('list', { name: 'History events, oldest first' });
    await timeline.getByText('checkout started on', { exact: false }).waitFor();
    await timeline
      .getByText(/^activity \w+ completed$/)
      .first()
      .waitFor();
    await timeline.getByText('completed', { exact: true }).waitFor();
    await screenshot('order');

    await page.getByRole('link', { name: buyer }).first().click();
    await heading('Grace Hopper').waitFor();
    const benefits = page.getByRole('table', { name: 'Granted benefits' });
    await benefits.getByText('App license key').waitFor();
    await benefits.getByRole('button', { name: 'Show license key' }).click();
    await benefits.getByText(/^APP-/).waitFor();
    await screenshot('customer');
  });

  it('refunds the order in full and revokes its benefits, after confirming', async () => {
    await page.getByRole('table', { name: 'Orders' }).getByRole('link', { name: /-\d+$/ }).click();
    await heading(/^Order /).waitFor();
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const form = page.getByRole('form', { name: 'Refund' });
    assert.equal(await form.getByLabel(/^Amount/).inputValue(), '19.00');
    await form.getByLabel('Reason').selectOption({ label: 'Customer request' });
    await form.getByLabel('Revoke the benefits of this purchase').check();
    await form.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this order?' });
    await dialog.getByText('This cannot be undone.').waitFor();
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    // The refund workflow settles it with Stripe; the page shows the outcome once it has.
    const orderId = new URL(page.url()).pathname.split('/').at(-1) as string;
    await eventually(
      () => v1('GET', `/v1/orders/${orderId}`),
      (order) => order.status === 'refunded',
      { what: 'the order refunded', timeoutMs: 60_000 },
    );
    await page.reload();
    await page
      .getByRole('table', { name: 'Refunds' })
      .getByText('succeeded', { exact: true })
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Refund', exact: true }).count(), 0);
    await screenshot('order-refunded');
  });

  it('lists a declined renewal under failed renewals, and "retry now" recovers it', async () => {
    // A monthly subscriber on a test clock; the simulator declines the first renewal charge.
    const clock = await v1('POST', '/v1/test-clocks/', { frozen_time: '2027-05-10T09:00:00Z' });
    const plan = await v1('POST', '/v1/products/', {
      name: 'Team plan',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 1000 }],
    });
    const details = buyerDetails();
    const customer = await v1('POST', '/v1/customers/', {
      email: details.customerEmail,
      test_clock_id: clock.id,
    });
    const checkout = await v1('POST', '/v1/checkouts/', {
      products: [plan.id],
      customer_id: customer.id,
    });
    await polarClient(api.url).checkouts.clientConfirm({
      clientSecret: checkout.client_secret,
      checkoutConfirmStripe: details,
    });
    const { subscription_id: subscriptionId } = await eventually(
      () => v1('GET', `/v1/checkouts/${checkout.id}`),
      (found) => found.status === 'succeeded' && found.subscription_id !== null,
      { what: 'the subscription checkout succeeded' },
    );
    await stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '').declinePayments({
      bodyIncludes: workflowIds.subscription(subscriptionId),
      declineCode: 'insufficient_funds',
      count: 1,
    });
    await v1('POST', `/v1/test-clocks/${clock.id}/advance`, {
      frozen_time: '2027-06-10T09:00:00Z',
    });
    await eventually(
      () => v1('GET', `/v1/subscriptions/${subscriptionId}`),
      (subscription) => subscription.status === 'past_due',
      { what: 'the renewal declined', timeoutMs: 90_000 },
    );

    await nav('Failed renewals').click();
    await heading('Failed renewals').waitFor();
    const row = page.getByRole('row').filter({ hasText: details.customerEmail as string });
    await row.getByText('insufficient_funds').waitFor();
    await page.getByText('1 failed renewal in USD').waitFor();
    await screenshot('failed-renewals');
    await row.getByRole('button', { name: /^Retry now/ }).click();
    await page
      .getByRole('dialog', { name: 'Retry the payment now?' })
      .getByRole('button', { name: 'Retry now' })
      .click();
    await page
      .getByRole('status')
      .getByText('The retry was paid: the subscription is active again.')
      .waitFor({ timeout: 60_000 });
    await page.getByText('No failed renewals: all paid.').waitFor();
    const recovered = await v1('GET', `/v1/subscriptions/${subscriptionId}`);
    assert.equal(recovered.status, 'active');
    assert.equal(new Date(recovered.current_period_end).toISOString(), '2027-07-10T09:00:00.000Z');
  });
});
