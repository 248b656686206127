import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import type { Page } from 'playwright-core';
import {
  callV1,
  createSeller,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../commerce/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { Checkout } from '../db/entities/index.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { eventually } from '../devstack/eventually.ts';
import { launchTestBrowser, screenshotsDir } from './browser-testing.ts';
import { checkoutPageRoutes } from './checkout-page.ts';

describe('hosted checkout page (serving)', () => {
  it('serves the built page for checkout, confirmation and portal paths with its settings', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'tollgate-dist-'));
    writeFileSync(
      join(dist, 'checkout.html'),
      '<head><!-- tollgate-checkout-config --></head><body></body>',
    );
    const config = loadRuntimeConfig({
      ...process.env,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_</script>',
    });
    const app = new Koa().use(checkoutPageRoutes(config, dist).routes());
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of [
        '/checkout/polar_c_abc',
        '/checkout/polar_c_abc/confirmation',
        '/portal',
        '/portal/some-shop',
        '/portal/sign-in',
        '/portal/subscriptions/0b6f3a52-5c53-4a4c-9d0e-6a1f2f1c3e11',
      ]) {
        const response = await fetch(`${base}${path}`);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
        const html = await response.text();
        assert.match(html, /<script id="tollgate-checkout-config" type="application\/json">/);
        // The key is there, escaped so it cannot end the script element.
        assert.ok(html.includes('{"stripePublishableKey":"pk_test_\\u003c/script>"}'), html);
      }
      assert.equal((await fetch(`${base}/checkout`)).status, 404);
    } finally {
      server.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

/**
 * The hosted checkout page in headless Chromium (Debian's package; `npm test` installs it when
 * missing): a buyer fills the form, sees the API's refusals next to the fields, pays with
 * Stripe's test cards and gets the license key on the confirmation page.
 */
describe('hosted checkout page (browser)', () => {
  let api: TestApi;
  let seller: Seller;
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  let licensed: { productId: string; benefitId: string };

  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startCommerceApi();
    seller = await createSeller(api);
    const benefit = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'App license key',
      properties: { prefix: 'APP' },
    });
    const product = await seller.polar.products.create({
      name: 'Desktop app',
      description: 'One licence, yours forever.',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    licensed = { productId: product.id, benefitId: benefit.id };
    browser = await launchTestBrowser();
  });

  after(async () => {
    await browser?.closeAndForget();
    await api?.close();
  });

  /** A new checkout of `products` (the first selected), opened in a new tab. */
  async function openCheckout(products = [licensed.productId]) {
    const checkout = await seller.polar.checkouts.create({ products });
    assert.ok(checkout.url.endsWith(`/checkout/${checkout.clientSecret}`));
    const page = await browser.newPage();
    await page.goto(`${api.url}/checkout/${checkout.clientSecret}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return Object.assign(page, { checkout });
  }

  const errorOf = (page: Page, field: string) =>
    page.locator(`#field-${field.replace(/[^a-zA-Z0-9_-]/g, '-')}-error`);

  it('shows each refusal next to the field it names and keeps what was typed', async () => {
    const page = await openCheckout();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Country').selectOption('US');
    await page.getByRole('radio', { name: /4242/ }).check();
    const pay = page.getByRole('button', { name: 'Pay $19.00' });
    await pay.click();

    const emailError = errorOf(page, 'customer_email');
    await emailError.waitFor();
    assert.ok((await emailError.textContent())?.trim());
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name').inputValue(), 'Ada Lovelace');
    await page.screenshot({
      path: join(screenshotsDir, 'checkout-email-refused.png'),
      fullPage: true,
    });

    // A US address needs its street, city, postal code and state.
    await page.getByLabel('Email').fill('ada@example.com');
    await pay.click();
    await emailError.waitFor({ state: 'detached' });
    await errorOf(page, 'customer_billing_address.line1').waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'ada@example.com');

    await page.getByLabel('Discount code').fill('NO-SUCH-CODE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await errorOf(page, 'discount_code').waitFor();
    assert.equal(await page.getByTestId('total-amount').textContent(), '$19.00');
    await page.close();
  });

  it('buys the product: a declined card shows the payment error the API reports, another card pays and the license key is shown', async () => {
    const page = await openCheckout();
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Country').selectOption('FR');
    await page.getByRole('radio', { name: /0002/ }).check();
    await page.getByRole('button', { name: 'Pay $19.00' }).click();

    const paymentError = page.locator('#payment-error');
    await paymentError.waitFor({ timeout: 30_000 });
    // The checkout failed; the page shows why, as the public checkout answers it (the processor's
    // message in `payment_error`, a general one when the API gives none).
    const failed = await callV1(
      api,
      null,
      'GET',
      `/v1/checkouts/client/${page.checkout.clientSecret}`,
    );
    assert.equal(failed.body.status, 'failed');
    assert.equal(
      await paymentError.textContent(),
      failed.body.payment_error?.message ?? 'The payment failed.',
    );
    assert.equal(await page.getByLabel('Email').inputValue(), 'grace@example.com');
    await page.screenshot({ path: join(screenshotsDir, 'checkout-declined.png'), fullPage: true });

    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: 'Pay $19.00' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    const shownKey = page.getByTestId('license-key');
    await shownKey.waitFor({ timeout: 30_000 });
    await page.screenshot({
      path: join(screenshotsDir, 'checkout-confirmation.png'),
      fullPage: true,
    });

    const keys = await seller.polar.licenseKeys.list({ benefitId: licensed.benefitId });
    const issued = keys.result.items.find((key) => key.customer.email === 'grace@example.com');
    assert.ok(issued, 'a license key was issued to the buyer');
    assert.equal(await shownKey.textContent(), issued.key);
    assert.match(issued.key, /^APP-/);

    // The customer portal link of a new session shows the order and the key.
    const session = await seller.polar.customerSessions.create({ customerId: issued.customerId });
    const portalLink = new URL(session.customerPortalUrl);
    await page.goto(`${api.url}${portalLink.pathname}${portalLink.search}`);
    await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
    await page.getByRole('region', { name: 'Overview' }).getByText('Desktop app').waitFor();
    await page.getByRole('link', { name: 'License keys' }).click();
    assert.equal(await page.getByTestId('license-key').textContent(), issued.key);
    assert.ok(!page.url().includes('customer_session_token'), 'the token left the address bar');
    await page.screenshot({ path: join(screenshotsDir, 'customer-portal.png'), fullPage: true });
    await page.close();
  });

  it('spends a returning customer’s balance: shows it applied and charges the card the rest', async () => {
    const customer = await seller.polar.customers.create({ email: 'ada@example.com' });
    const credited = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/customers/${customer.id}/balance/adjustments`,
      { amount: 1000, currency: 'usd', reason: 'Goodwill credit' },
    );
    assert.equal(credited.status, 201, JSON.stringify(credited.body));
    const checkout = await seller.polar.checkouts.create({
      products: [licensed.productId],
      customerId: customer.id,
    });
    const page = await browser.newPage();
    await page.goto(`${api.url}/checkout/${checkout.clientSecret}`);
    assert.equal(await page.getByTestId('balance-applied').textContent(), '−$10.00');
    assert.equal(await page.getByTestId('amount-due').textContent(), '$9.00');
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Country').selectOption('FR');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-balance.png'), fullPage: true });
    await page.getByRole('button', { name: 'Pay $9.00' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    await page.getByText('You paid $9.00 for Desktop app.').waitFor({ timeout: 30_000 });
    assert.deepEqual(await seller.polar.customers.getBalance({ id: customer.id }), {
      balance: 0,
      currency: 'usd',
    });
    await page.close();
  });

  it('prices a pay-what-you-want amount within its bounds, asks for custom fields and business details', async () => {
    const source = await seller.polar.customFields.create({
      type: 'select',
      slug: `source-${Date.now()}`,
      name: 'Source',
      properties: {
        formLabel: 'How did you hear about us?',
        options: [
          { value: 'friend', label: 'A friend' },
          { value: 'search', label: 'A search engine' },
        ],
      },
    });
    const product = await seller.polar.products.create({
      name: 'Tip jar',
      prices: [
        { amountType: 'custom', minimumAmount: 500, maximumAmount: 10_000, presetAmount: 1000 },
      ],
      attachedCustomFields: [{ customFieldId: source.id, required: true }],
    });
    const page = await openCheckout([product.id]);
    const amount = page.getByLabel('Amount (USD)');
    assert.equal(await amount.inputValue(), '10.00');

    await amount.fill('2');
    await amount.press('Enter');
    await errorOf(page, 'amount').waitFor();
    assert.equal(await page.getByTestId('total-amount').textContent(), '$10.00');
    await amount.fill('25.50');
    await amount.press('Tab');
    await page.getByRole('button', { name: 'Pay $25.50' }).waitFor();
    assert.equal(await errorOf(page, 'amount').count(), 0);

    await page.getByLabel('Email').fill('linus@example.com');
    await page.getByLabel('Name').fill('Linus');
    await page.getByLabel('I’m purchasing as a business').check();
    await page.getByLabel('Business name').fill('Torvalds Oy');
    await page.getByLabel('Tax ID').fill('FI20774740');
    await page.getByLabel('Country').selectOption('FI');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: 'Pay $25.50' }).click();
    await errorOf(page, `custom_field_data.${source.slug}`).waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'checkout-custom-field.png'),
      fullPage: true,
    });
    // A business needs a full address, whatever the country.
    assert.equal(await errorOf(page, 'customer_billing_address.line1').count(), 1);

    await page.getByLabel('How did you hear about us?').selectOption('friend');
    await page.getByRole('textbox', { name: 'Address', exact: true }).fill('Mannerheimintie 1');
    await page.getByLabel('Postal code').fill('00100');
    await page.getByLabel('City').fill('Helsinki');
    await page.getByLabel('State / province').fill('Uusimaa');
    await page.getByRole('button', { name: 'Pay $25.50' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    await page.getByText('You paid $25.50 for Tip jar.').waitFor({ timeout: 30_000 });

    const orders = await seller.polar.orders.list({ productId: product.id });
    const [order] = orders.result.items;
    assert.equal(order?.totalAmount, 2550);
    assert.equal(order?.billingName, 'Torvalds Oy');
    assert.equal(order?.billingAddress?.city, 'Helsinki');
    await page.close();
  });

  it('picks seats of a seat-based plan, priced as typed, and the customer adds seats in the portal', async () => {
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const product = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'seat_based', pricePerSeat: 1200 }],
    });
    const page = await openCheckout([product.id]);
    const seats = page.getByLabel('Seats');
    assert.equal(await seats.inputValue(), '1');
    await seats.fill('3');
    await seats.press('Tab');
    await page.getByRole('button', { name: /^Pay \$36\.00/ }).waitFor();
    assert.equal(await page.getByTestId('total-amount').textContent(), '$36.00 / month');

    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: /^Pay \$36\.00/ }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    const [subscription] = await eventually(
      async () => (await seller.polar.subscriptions.list({ productId: product.id })).result.items,
      (found) => found.length === 1,
      { what: 'the team plan subscription' },
    );
    assert.ok(subscription);
    assert.equal(subscription.amount, 3600);

    const session = await seller.polar.customerSessions.create({
      customerId: subscription.customerId,
    });
    const portalLink = new URL(session.customerPortalUrl);
    await page.goto(`${api.url}${portalLink.pathname}${portalLink.search}`);
    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    assert.equal(await page.getByTestId('seats').textContent(), ' · 3 seats');
    await page.getByRole('button', { name: 'Change seats' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change seats' });
    await dialog.getByLabel('Seats').fill('4');
    await dialog.getByText('With 4 seats: $48.00 / month.').waitFor();
    await dialog.getByRole('button', { name: 'Change seats' }).click();
    await page.getByText('You now have 4 seats.').waitFor({ timeout: 30_000 });
    const changed = await callV1(api, seller.token, 'GET', `/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([changed.body.seats, changed.body.amount], [4, 4800]);
    await page.close();
  });

  it('switches between the checkout’s products and applies a discount code, by keyboard', async () => {
    const second = await seller.polar.products.create({
      name: 'Desktop app, team edition',
      prices: [{ amountType: 'fixed', priceAmount: 4900 }],
    });
    const code = `SAVE${Date.now()}`;
    await seller.polar.discounts.create({
      name: 'Ten percent',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'once',
      code,
    });
    const page = await openCheckout([licensed.productId, second.id]);
    await page.getByRole('radio', { name: /team edition/ }).check();
    await page.getByRole('heading', { name: 'Desktop app, team edition' }).waitFor();
    assert.equal(await page.getByTestId('total-amount').textContent(), '$49.00');

    await page.getByLabel('Discount code').focus();
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await page.getByTestId('discount-amount').waitFor();
    assert.equal(await page.getByTestId('discount-amount').textContent(), '−$4.90');
    assert.equal(await page.getByTestId('total-amount').textContent(), '$44.10');
    await page.getByRole('button', { name: 'Pay $44.10' }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-discount.png'), fullPage: true });
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Pay $49.00' }).waitFor();
    assert.equal(await page.getByTestId('discount-amount').count(), 0);
    assert.equal(await page.getByLabel('Discount code').inputValue(), '');

    // Every control has a label a screen reader announces.
    const unlabelled = await page
      .locator('input, select, textarea')
      .evaluateAll((controls) =>
        controls
          .filter(
            (control) => (control as unknown as { labels: ArrayLike<unknown> }).labels.length === 0,
          )
          .map((control) => control.outerHTML),
      );
    assert.deepEqual(unlabelled, []);
    await page.close();
  });

  it('says so when the checkout has expired or does not exist', async () => {
    const checkout = await seller.polar.checkouts.create({ products: [licensed.productId] });
    await api.orm.em
      .fork()
      .nativeUpdate(Checkout, { id: checkout.id }, { expiresAt: new Date(Date.now() - 1000) });
    const page = await browser.newPage();
    await page.goto(`${api.url}/checkout/${checkout.clientSecret}`);
    await page.getByRole('alert').getByText('This checkout has expired.').waitFor();
    await page.goto(`${api.url}/checkout/polar_c_unknown`);
    await page.getByRole('alert').getByText('This checkout does not exist.').waitFor();
    await page.close();
  });
});
