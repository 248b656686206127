import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSeller, type Seller } from '../commerce/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { Checkout, Organization } from '../db/entities/index.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { firstRenewalAt } from '../domain/charge-terms.ts';
import { launchTestBrowser, screenshotsDir, startDashboardApi } from './browser-testing.ts';
import { startApiServer } from './server.ts';

/**
 * The hosted checkout page says what will be charged and is hard to lose: the terms of a
 * discounted or trial subscription, its button's promise, what was typed surviving a reload, the
 * first refused field brought into view, the next billing date and the portal after paying, and
 * a page in the seller's name (never JSON) for an expired checkout or a dead link.
 */
describe('hosted checkout page: terms, drafts and dead ends (browser)', () => {
  let api: Awaited<ReturnType<typeof startDashboardApi>>;
  let seller: Seller;
  let sellerName: string;
  let sellerSlug: string;
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  let planId: string;

  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startDashboardApi();
    seller = await createSeller(api);
    const organization = await api.orm.em.fork().findOneOrFail(Organization, seller.organizationId);
    sellerName = organization.name;
    sellerSlug = organization.slug;
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    planId = plan.id;
    browser = await launchTestBrowser();
  });

  after(async () => {
    await browser?.closeAndForget();
    await api?.close();
  });

  async function open(url: string) {
    const page = await browser.newPage();
    const response = await page.goto(url);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return { page, response };
  }

  it('says what a discounted plan charges over time, and its button that it renews', async () => {
    const discount = await seller.polar.discounts.create({
      name: 'Launch offer',
      type: 'percentage',
      basisPoints: 2000,
      duration: 'repeating',
      durationInMonths: 3,
    });
    const checkout = await seller.polar.checkouts.create({
      products: [planId],
      discountId: discount.id,
    });
    const { page } = await open(checkout.url);
    const terms = page.getByTestId('charge-terms');
    assert.equal(await terms.textContent(), '$23.20 / month for 3 months, then $29.00');
    // Shown as a sentence: its first letter capitalized by style, not in the text.
    assert.ok(await terms.isVisible());
    await page
      .getByRole('button', { name: 'Pay $23.20 — renews monthly until canceled' })
      .waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-terms.png'), fullPage: true });
    await page.close();
  });

  it('says a trial is free first and nothing is due today', async () => {
    const checkout = await seller.polar.checkouts.create({
      products: [planId],
      trialInterval: 'day',
      trialIntervalCount: 7,
    });
    const { page } = await open(checkout.url);
    assert.equal(
      await page.getByTestId('charge-terms').textContent(),
      'free for 7 days, then $29.00 / month',
    );
    assert.equal(await page.getByTestId('due-today').textContent(), '$0.00');
    await page
      .getByRole('button', { name: 'Start free trial — renews monthly until canceled' })
      .waitFor();
    await page.close();
  });

  it('keeps what was typed across a reload, and brings the first refused field into view', async () => {
    const checkout = await seller.polar.checkouts.create({ products: [planId] });
    const page = await browser.newPage();
    // A phone's screen: the email field is out of sight once the buyer reaches the pay button.
    await page.setViewportSize({ width: 390, height: 640 });
    await page.goto(checkout.url);
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Country').selectOption('FR');
    await page.getByRole('radio', { name: /0002/ }).check();
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Ada Lovelace');
    assert.equal(await page.getByLabel('Country').inputValue(), 'FR');
    assert.ok(await page.getByRole('radio', { name: /0002/ }).isChecked());

    // No email: the API refuses it, and the page takes the buyer up to it.
    await page.getByRole('radio', { name: /4242/ }).check();
    const pay = page.getByRole('button', { name: /^Pay \$29\.00/ });
    await pay.scrollIntoViewIfNeeded();
    await pay.click();
    await page.locator('#field-customer_email-error').waitFor();
    // The page's globals, as far as these checks read them (the test compiles without the DOM's types).
    type Globals = { document: { activeElement: { id: string } | null } };
    await page.waitForFunction(
      () =>
        (globalThis as unknown as Globals).document.activeElement?.id === 'field-customer_email',
    );
    const box = await page.getByLabel('Email').boundingBox();
    const screen = page.viewportSize();
    const inView = box && screen && box.y >= 0 && box.y + box.height <= screen.height;
    assert.ok(inView, 'the refused email field is on screen');

    // Paid: the draft is forgotten, the next billing date and the portal are shown.
    await page.getByLabel('Email').fill('ada@example.com');
    await pay.click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    const date = page.getByTestId('next-billing-date');
    await date.waitFor({ timeout: 30_000 });
    const expected = new Intl.DateTimeFormat('en-US', { dateStyle: 'long' });
    const renewal = firstRenewalAt(new Date(), 'month', null);
    assert.equal(await date.textContent(), expected.format(renewal));
    const portal = page.getByRole('link', { name: 'Manage your subscription' });
    const href = new URL((await portal.getAttribute('href')) ?? '', api.url);
    assert.equal(href.pathname, `/portal/${sellerSlug}`);
    assert.ok(href.searchParams.get('customer_session_token'), 'the portal opens signed in');
    const drafts = await page.evaluate(() =>
      Object.keys((globalThis as unknown as { sessionStorage: object }).sessionStorage).filter(
        (key) => key.endsWith('.draft'),
      ),
    );
    assert.deepEqual(drafts, []);
    await page.screenshot({
      path: join(screenshotsDir, 'checkout-next-billing.png'),
      fullPage: true,
    });
    await page.close();
  });

  it('answers an expired checkout with a page in the seller’s name that starts a new one', async () => {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [planId],
    });
    const first = await browser.newPage();
    await first.goto(link.url);
    await first.getByRole('heading', { name: 'Pro plan' }).waitFor();
    const clientSecret = new URL(first.url()).pathname.split('/').pop() ?? '';
    await api.orm.em
      .fork()
      .nativeUpdate(Checkout, { clientSecret }, { expiresAt: new Date(Date.now() - 1000) });

    const { page, response } = await open(first.url());
    assert.equal(response?.status(), 410);
    assert.match(response?.headers()['content-type'] ?? '', /text\/html/);
    await page.getByRole('heading', { name: 'Checkout expired' }).waitFor();
    await page.getByText(sellerName, { exact: true }).waitFor();
    await page.getByRole('alert').getByText('This checkout has expired.').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-expired.png'), fullPage: true });
    await page.getByRole('link', { name: 'Start a new checkout' }).click();
    await page.getByRole('heading', { name: 'Pro plan' }).waitFor();
    assert.notEqual(new URL(page.url()).pathname, `/checkout/${clientSecret}`);
    await first.close();
    await page.close();
  });

  it('answers an unknown checkout, a deleted and an unknown link with a page, not JSON', async () => {
    const unknown = await open(`${api.url}/checkout/polar_c_unknown`);
    assert.equal(unknown.response?.status(), 404);
    await unknown.page.getByRole('alert').getByText('This checkout does not exist.').waitFor();
    await unknown.page.close();

    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [planId],
    });
    await seller.polar.checkoutLinks.delete({ id: link.id });
    const deleted = await open(link.url);
    assert.equal(deleted.response?.status(), 404);
    assert.match(deleted.response?.headers()['content-type'] ?? '', /text\/html/);
    await deleted.page.getByText(sellerName, { exact: true }).waitFor();
    await deleted.page
      .getByRole('alert')
      .getByText('This checkout link no longer works.')
      .waitFor();
    await deleted.page.getByText(/To start a new checkout/).waitFor();
    await deleted.page.screenshot({
      path: join(screenshotsDir, 'checkout-link-deleted.png'),
      fullPage: true,
    });
    await deleted.page.close();

    const bad = await open(`${api.url}/v1/checkout-links/polar_cl_nonsense/redirect`);
    assert.equal(bad.response?.status(), 404);
    await bad.page.getByRole('alert').getByText('This checkout link no longer works.').waitFor();
    await bad.page.close();

    // An API client asking for JSON still gets Polar's refusal.
    const asApi = await fetch(link.url, { headers: { accept: 'application/json' } });
    assert.equal(asApi.status, 404);
    assert.equal(((await asApi.json()) as { error?: string }).error, 'ResourceNotFound');
  });
});

describe('hosted checkout page: per-IP limit', () => {
  it('counts the page’s reads of whose checkout or link it names against the client’s IP', async () => {
    await buildDashboardIfStale(() => {});
    const config = loadRuntimeConfig();
    // Every public limit at one request per window.
    const limited = await startApiServer(
      { ...config, auth: { ...config.auth, rateLimit: { enabled: true, scale: 0.0001 } } },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      await limited.orm.em
        .getConnection()
        .execute("delete from rate_limits where key like 'v1.checkoutPage%'", [], 'run');
      for (const path of ['/checkout/polar_c_unknown', '/checkout-link/polar_cl_unknown']) {
        const first = await fetch(`${limited.url}${path}`);
        await first.body?.cancel();
        const second = await fetch(`${limited.url}${path}`);
        await second.body?.cancel();
        assert.equal(first.status, 404, path);
        assert.equal(second.status, 429, path);
        assert.ok(second.headers.get('retry-after'), path);
        await limited.orm.em
          .getConnection()
          .execute("delete from rate_limits where key like 'v1.checkoutPage%'", [], 'run');
      }
    } finally {
      await limited.close();
    }
  });
});
