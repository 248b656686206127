import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { dashboardBrowserSuite, ownerPage } from './browser-testing.ts';

/**
 * The security headers in headless Chromium: another site cannot frame the payment page or the
 * dashboard (clickjacking), and the Content-Security-Policy lets both pages work as built.
 */
describe('security headers (browser)', () => {
  const suite = dashboardBrowserSuite();
  let attacker: Server;
  let attackerUrl: string;

  before(async () => {
    // Another origin (another port) whose page frames whatever `?src=` names.
    attacker = createServer((request, response) => {
      const src = new URL(request.url ?? '/', 'http://attacker').searchParams.get('src') ?? '';
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><p>Win a prize!</p><iframe src="${encodeURI(src)}"></iframe>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

  /** Records the page's CSP violations from its first script on. */
  async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
    // Source text: the test's type-check knows Node, not the DOM.
    await page.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (event) =>
          window.cspViolations.push(event.effectiveDirective + ' ' + event.blockedURI));`,
    });
    return () => page.evaluate<string[]>('window.cspViolations');
  }

  async function newCheckout(post: Awaited<ReturnType<typeof ownerPage>>['post']) {
    const product = await post('/v1/products/', {
      name: 'Framed lamp',
      prices: [{ amount_type: 'fixed', price_amount: 2500, price_currency: 'usd' }],
    });
    const checkout = await post('/v1/checkouts/', { products: [product.id] });
    return `${suite.api.url}/checkout/${checkout.client_secret}`;
  }

  it('runs the dashboard and the checkout page without a single CSP violation', async () => {
    const { page, post } = await ownerPage(suite.browser, suite.api.url);
    const violations = await watchViolations(page);
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.goto(`${suite.api.url}/products`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.deepEqual(await violations(), []);

    await page.goto(await newCheckout(post));
    await page.getByRole('heading', { level: 1, name: 'Framed lamp' }).waitFor();
    assert.deepEqual(await violations(), []);
    await page.close();
  });

  it('refuses to be framed by another site: neither the payment page nor the dashboard shows', async () => {
    const { page, post } = await ownerPage(suite.browser, suite.api.url);
    for (const target of [await newCheckout(post), `${suite.api.url}/`]) {
      const loadedInFrame: string[] = [];
      page.on('request', (request) => {
        if (request.frame() !== page.mainFrame() && request.url().includes('/assets/')) {
          loadedInFrame.push(request.url());
        }
      });
      await page.goto(`${attackerUrl}?src=${encodeURIComponent(target)}`);
      await page.getByText('Win a prize!').waitFor();
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      assert.ok(frame, 'the attacker page has its frame');
      await frame.waitForLoadState();
      assert.equal(await frame.locator('#root').count(), 0, target);
      assert.deepEqual(loadedInFrame, [], target);
      page.removeAllListeners('request');
    }
    await page.close();
  });
});
