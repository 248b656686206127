import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../commerce/testing.ts';
import { Payment } from '../db/entities/index.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { launchTestBrowser, screenshotsDir } from './browser-testing.ts';

/**
 * The hosted checkout with a card that asks for 3-D Secure, in headless Chromium: the page sends
 * the buyer to the challenge (the Stripe simulator's test page, as no publishable key is
 * configured), which sends them back; the payment then settles through the webhook.
 */
describe('hosted checkout page with 3-D Secure (browser)', () => {
  let api: TestApi;
  let seller: Seller;
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  let productId: string;

  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startCommerceApi();
    seller = await createSeller(api);
    productId = (
      await seller.polar.products.create({
        name: 'Field guide',
        prices: [{ amountType: 'fixed', priceAmount: 1900 }],
      })
    ).id;
    browser = await launchTestBrowser();
  });

  after(async () => {
    await browser?.closeAndForget();
    await api?.close();
  });

  /** A new checkout, its buyer's details typed and the 3-D Secure test card picked, paid. */
  async function payWithThreeDSecureCard(email: string) {
    const checkout = await seller.polar.checkouts.create({ products: [productId] });
    const page = await browser.newPage();
    await page.goto(`${api.url}/checkout/${checkout.clientSecret}`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Ada Buyer');
    await page.getByLabel('Country').selectOption('FR');
    await page.getByRole('radio', { name: /3220/ }).check();
    await page.getByRole('button', { name: /^Pay \$19\.00/ }).click();
    await page.waitForURL(/\/_simulator\/3ds\/pi_/, { timeout: 30_000 });
    await page.getByRole('heading', { name: '3-D Secure test challenge' }).waitFor();
    return Object.assign(page, { checkout });
  }

  const paymentsOf = (checkoutId: string) =>
    api.orm.em.fork().find(Payment, { checkoutId }, { orderBy: { createdAt: 'asc' } });

  it('pays after the challenge is completed: back on the page, then the confirmation', async () => {
    const page = await payWithThreeDSecureCard('three-d@example.com');
    await page.getByText('Pay 19.00 USD?').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-3ds-challenge.png') });
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    await page.screenshot({ path: join(screenshotsDir, 'checkout-3ds-paid.png'), fullPage: true });

    const orders = await seller.polar.orders.list({ checkoutId: page.checkout.id });
    assert.equal(orders.result.items.length, 1);
    assert.equal(orders.result.items[0]?.totalAmount, 1900);
    assert.deepEqual(
      (await paymentsOf(page.checkout.id)).map((payment) => payment.status),
      ['succeeded'],
    );
    await page.close();
  });

  it('a failed challenge shows the failure on the page; another card then pays', async () => {
    const page: Page & { checkout: { id: string } } = await payWithThreeDSecureCard(
      'three-d-failed@example.com',
    );
    await page.getByRole('button', { name: 'Fail' }).click();
    const paymentError = page.locator('#payment-error');
    await paymentError.waitFor({ timeout: 30_000 });
    assert.equal(
      await paymentError.textContent(),
      'Your card could not be authenticated. Try again, or use another card.',
    );
    await page.screenshot({
      path: join(screenshotsDir, 'checkout-3ds-failed.png'),
      fullPage: true,
    });

    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: /^Pay \$19\.00/ }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    assert.deepEqual(
      (await paymentsOf(page.checkout.id)).map((payment) => payment.status),
      ['failed', 'succeeded'],
    );
    await page.close();
  });
});
