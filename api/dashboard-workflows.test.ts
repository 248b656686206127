import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buy } from '../commerce/orders/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The workflow panel, the workflows list and the home page's metrics in headless Chromium.
 * Orders are bought through the API; the dashboard's API is also the commerce test API.
 */
describe('dashboard: workflows and home metrics (browser)', () => {
  const suite = dashboardBrowserSuite();
  const signedInSeller = () =>
    sellerPage(suite.browser, suite.api.url, suite.api, { organizationName: 'Workflow Works' });

  it("shows a paid checkout's workflow on its order page, and the sale on the home page", async () => {
    const { page, seller } = await signedInSeller();
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const { order } = await buy(suite.api, seller, ebook.id);
    assert.ok(order);

    await page.goto(`${suite.api.url}/`);
    const totals = page.locator('dl.summary');
    await totals.getByText('$20.00').first().waitFor();
    await page.getByRole('figure', { name: 'Revenue, Active Subscriptions, by day' }).waitFor();
    const chart = page.getByRole('figure', { name: /by day/ });
    // The range ends today: hovering the plot's right edge shows today's sale in the tooltip.
    const plot = await chart.locator('.recharts-cartesian-grid').boundingBox();
    assert.ok(plot);
    await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2);
    const tooltip = chart.locator('.recharts-tooltip-wrapper');
    await tooltip.getByText('Revenue : $20.00').waitFor();
    await tooltip.getByText('Active Subscriptions : 0').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-home.png'), fullPage: true });
    await chart.getByText('Show the numbers').click();
    await chart
      .getByRole('table', { name: /by period/ })
      .getByText('$20.00')
      .waitFor();

    // Another metric joins the chart, its table and the URL.
    // Clicked, not `check()`ed: the box is checked once the URL changed, a moment later.
    await chart.getByLabel('Orders', { exact: true }).click();
    await page
      .getByRole('figure', { name: 'Revenue, Active Subscriptions, Orders, by day' })
      .waitFor();
    await chart.getByRole('columnheader', { name: 'Orders' }).waitFor();
    assert.match(page.url(), /chart=revenue%2Cactive_subscriptions%2Corders/);
    await page.getByLabel('Last 12 months').click();
    await page.getByRole('figure', { name: /by month/ }).waitFor();
    assert.match(page.url(), /range=12m/);

    await page.goto(`${suite.api.url}/orders/${order.id}`);
    const panel = page.getByRole('region', { name: 'Workflow' });
    await panel.getByText('completed', { exact: true }).first().waitFor();
    await panel.getByText(`checkout:${order.checkoutId}`).waitFor();
    await panel.getByText('activity createCheckoutPayment completed').waitFor();
    await panel.getByText('No failures.').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-workflow.png'), fullPage: true });
    await page.close();
  });

  it('shows amounts in one currency at a time, picked when the organization sells in several', async () => {
    const { page, seller } = await signedInSeller();
    const [ebook, guide] = await Promise.all(
      [2000, 3500].map((priceAmount) =>
        seller.polar.products.create({
          name: `Book ${priceAmount}`,
          prices: [{ amountType: 'fixed', priceAmount }],
        }),
      ),
    );
    assert.ok(ebook && guide);
    const [, { order: guideOrder }] = await Promise.all([
      buy(suite.api, seller, ebook.id),
      buy(suite.api, seller, guide.id),
    ]);
    assert.ok(guideOrder);
    // Prices are USD only for now: the guide's sale is made EUR in place.
    await suite.api.orm.em
      .fork()
      .execute(`update orders set currency = 'eur' where id = ?`, [guideOrder.id]);

    await page.goto(`${suite.api.url}/`);
    const revenue = page.locator('dl.summary div').filter({ hasText: /^Revenue/ });
    await revenue.getByText('$20.00').waitFor();
    const orders = page.locator('dl.summary div').filter({ hasText: /^Orders/ });
    await orders.getByText('2', { exact: true }).waitFor();
    await page.getByLabel('Currency').selectOption('eur');
    await revenue.getByText('€35.00').waitFor();
    await orders.getByText('2', { exact: true }).waitFor();
    assert.match(page.url(), /currency=eur/);
    await page.close();
  });

  it("lists a running subscription's workflow and shows what it waits for", async () => {
    const { page, seller } = await signedInSeller();
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { order } = await buy(suite.api, seller, plan.id);
    assert.ok(order?.subscriptionId);

    await page.goto(`${suite.api.url}/workflows`);
    await page.getByLabel('Status').selectOption({ label: 'Running' });
    const row = page.getByRole('row').filter({ hasText: order.subscriptionId });
    await row.getByText('running').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-workflows.png'),
      fullPage: true,
    });
    // The entity cell opens the subscription; the workflow link, its panel.
    assert.equal(
      await row.getByRole('link', { name: order.subscriptionId }).getAttribute('href'),
      `/subscriptions/${order.subscriptionId}`,
    );
    await row.getByRole('link', { name: 'Timeline and state' }).click();
    const panel = page.getByRole('region', { name: 'Workflow' });
    await panel.getByRole('heading', { name: 'Current state' }).waitFor();
    await panel.getByText(/^Renews/).waitFor();
    await panel.getByText(/^Timer \S+ fires/).waitFor();
    await panel
      .getByText(/update changeSubscription/)
      .first()
      .waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-workflow-subscription.png'),
      fullPage: true,
    });

    // Checkouts link to the order they made.
    await page.getByRole('link', { name: '← Workflows' }).click();
    await page
      .getByRole('navigation', { name: 'Workflow types' })
      .getByRole('link', { name: 'Checkouts' })
      .click();
    const checkoutRow = page.getByRole('row').filter({ hasText: order.checkoutId ?? '' });
    assert.equal(
      await checkoutRow.getByRole('link', { name: order.checkoutId ?? '' }).getAttribute('href'),
      `/orders/${order.id}`,
    );
    await page.close();
  });

  it('says so when an entity has no workflow', async () => {
    const { page } = await signedInSeller();
    await page.goto(`${suite.api.url}/workflows/subscription/${randomUUID()}`);
    await page
      .getByRole('note')
      .getByText(/No workflow found/)
      .waitFor();
    await page.close();
  });
});
