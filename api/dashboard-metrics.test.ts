import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buy } from '../commerce/orders/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The home page's metrics per currency in headless Chromium: amounts of two currencies are never
 * added up; the seller picks the currency shown, counts stay those of every currency.
 */
describe('dashboard: metrics per currency (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('shows the amounts of one currency at a time, the one picked kept in the URL', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Metrics Works',
    });
    const [ebook, plan] = await Promise.all([
      seller.polar.products.create({
        name: 'Ebook',
        prices: [{ amountType: 'fixed', priceAmount: 1900 }],
      }),
      seller.polar.products.create({
        name: 'Monthly plan',
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount: 900 }],
      }),
    ]);
    const [bought, subscribed] = await Promise.all([
      buy(suite.api, seller, ebook.id),
      buy(suite.api, seller, plan.id),
    ]);
    assert.ok(bought.order && subscribed.order?.subscriptionId);
    // Prices are USD only for now: the plan's order and subscription are made EUR in place.
    const em = suite.api.orm.em.fork();
    await em.execute(`update orders set currency = 'eur' where id = ?`, [subscribed.order.id]);
    await em.execute(`update subscriptions set currency = 'eur' where id = ?`, [
      subscribed.order.subscriptionId,
    ]);

    await page.goto(`${suite.api.url}/`);
    const totals = page.locator('dl.summary');
    const total = (label: string) =>
      totals
        .locator('div')
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator('dd');
    await total('Revenue').getByText('$19.00').waitFor();
    assert.equal(await total('Monthly recurring revenue').textContent(), '$0.00');
    assert.equal(await total('Orders').textContent(), '2', 'counts are of every currency');

    await page.getByLabel('Currency').selectOption('eur');
    await total('Revenue').getByText('€9.00').waitFor();
    assert.equal(await total('Monthly recurring revenue').textContent(), '€9.00');
    assert.equal(await total('Active subscriptions').textContent(), '1');
    assert.match(page.url(), /currency=eur/);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-home-eur.png'), fullPage: true });

    // The picked currency stays on reload.
    await page.reload();
    await total('Revenue').getByText('€9.00').waitFor();
    await page.close();
  });
});
