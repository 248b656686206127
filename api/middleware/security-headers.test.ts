import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig } from '../../config/env.ts';
import { buildDashboardIfStale } from '../../devstack/dashboard.ts';
import { startTestApi } from '../testing.ts';

type TestApi = Awaited<ReturnType<typeof startTestApi>>;

/** The CSP of an answer as directive name → sources. */
function policyOf(response: Response): Map<string, string[]> {
  const header = response.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

describe('security headers', () => {
  let api: TestApi;
  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startTestApi(
      loadRuntimeConfig({ ...process.env, STRIPE_PUBLISHABLE_KEY: 'pk_test_headers' }),
    );
  });
  after(() => api.close());

  it('forbids framing, sniffing and referrer paths on pages and API answers alike', async () => {
    for (const path of ['/', '/products', '/checkout/polar_c_x', '/api/auth/ok', '/v1/nowhere']) {
      const response = await fetch(`${api.url}${path}`);
      await response.arrayBuffer();
      assert.equal(response.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.ok(response.headers.get('referrer-policy'), path);
      const policy = policyOf(response);
      assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], path);
      assert.deepEqual(policy.get('default-src'), ["'self'"], path);
      assert.deepEqual(policy.get('object-src'), ["'none'"], path);
      // Outside production there is no HSTS (the public URL is plain HTTP here).
      assert.equal(response.headers.get('strict-transport-security'), null, path);
    }
  });

  it('lets only the checkout page load Stripe.js and its frames, and no page run inline code', async () => {
    const dashboard = policyOf(await fetch(`${api.url}/`));
    const checkout = policyOf(await fetch(`${api.url}/checkout/polar_c_x`));
    assert.deepEqual(dashboard.get('script-src'), ["'self'"]);
    assert.deepEqual(dashboard.get('frame-src'), ["'none'"]);
    assert.ok(checkout.get('script-src')?.includes('https://js.stripe.com'));
    assert.ok(checkout.get('frame-src')?.includes('https://hooks.stripe.com'));
    assert.ok(checkout.get('connect-src')?.includes('https://api.stripe.com'));
    for (const policy of [dashboard, checkout]) {
      const sources = [...policy.values()].flat();
      assert.ok(!sources.includes("'unsafe-inline'") && !sources.includes("'unsafe-eval'"));
    }
    // The checkout page keeps its stricter referrer policy: its address holds the secret.
    const page = await fetch(`${api.url}/checkout/polar_c_x`);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  });

  it('sends HSTS in production when the public URL is HTTPS, and only then', async () => {
    const environment = { ...process.env, NODE_ENV: 'production' };
    const secure = await startTestApi(
      loadRuntimeConfig({ ...environment, TOLLGATE_PUBLIC_URL: 'https://pay.example.com' }),
    );
    const plain = await startTestApi(
      loadRuntimeConfig({ ...environment, TOLLGATE_PUBLIC_URL: 'http://pay.example.com' }),
    );
    try {
      const hsts = await fetch(`${secure.url}/api/auth/ok`);
      assert.equal(hsts.headers.get('strict-transport-security'), 'max-age=31536000');
      const none = await fetch(`${plain.url}/api/auth/ok`);
      assert.equal(none.headers.get('strict-transport-security'), null);
    } finally {
      await secure.close();
      await plain.close();
    }
  });
});
