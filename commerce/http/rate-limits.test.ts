import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Checkout } from '../../db/entities/index.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { commerceErrors } from '../errors.ts';
import { commerceRoutes } from '../routes.ts';
import {
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';
import { publicLimits } from './rate-limits.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;

/** An API with the public limits on, every maximum multiplied by `scale` (the test stack's are off). */
function startLimitedApi(scale: number) {
  const config = loadRuntimeConfig();
  return startApiServer(
    { ...config, auth: { ...config.auth, rateLimit: { enabled: true, scale } } },
    { host: '127.0.0.1', port: 0 },
  );
}

describe('per-IP limits of the public /v1 routes', () => {
  let open: TestApi;
  /** At a tenth of the production limits. */
  let limited: Api;
  /** Every limit at one request per window. */
  let strict: Api;
  let seller: Seller;
  const scale = 0.1;
  const limits = publicLimits(scale);

  before(async () => {
    [open, limited, strict] = await Promise.all([
      startCommerceApi(),
      startLimitedApi(scale),
      startLimitedApi(0.0001),
    ]);
    seller = await createSeller(open);
  });
  after(() => Promise.all([open, limited, strict].map((api) => api.close())));
  // Every request here comes from 127.0.0.1: each test starts with none of its counters.
  const clearCounters = () =>
    open.orm.em.getConnection().execute("delete from rate_limits where key like 'v1.%'", [], 'run');
  beforeEach(clearCounters);

  it('stops a stranger replaying a checkout link: 429 with Retry-After, no checkout opened', async () => {
    const product = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [product.id],
    });
    const redirect = (api: { url: string }) =>
      fetch(`${api.url}/v1/checkout-links/${link.clientSecret}/redirect`, { redirect: 'manual' });
    const { max, windowSeconds } = limits.checkoutLinkRedirect;
    assert.ok(max >= 2);
    for (let attempt = 1; attempt <= max; attempt++) {
      assert.equal((await redirect(limited)).status, 302, `redirect ${attempt}`);
    }

    const blocked = await redirect(limited);
    assert.equal(blocked.status, 429);
    assert.deepEqual(await blocked.json(), {
      error: 'TooManyRequests',
      detail: commerceErrors.TooManyRequests.detail,
    });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds);
    // Each allowed redirect opened a checkout (and its workflow); the blocked one did not.
    const opened = await open.orm.em.fork().count(Checkout, { checkoutLink: link.id });
    assert.equal(opened, max);

    // The test stack's API has the limits off: it still redirects.
    assert.equal((await redirect(open)).status, 302);
  });

  it('cuts off guessing license keys; Polar’s SDK surfaces the 429 with its headers', async () => {
    const buyer = polarClient(limited.url);
    const guess = () =>
      buyer.customerPortal.licenseKeys.validate({
        key: `guess-${randomBytes(8).toString('hex')}`,
        organizationId: seller.organizationId,
      });
    for (let attempt = 1; attempt <= limits.licenseKeyValidate.max; attempt++) {
      await assert.rejects(guess(), { name: 'ResourceNotFound' }, `guess ${attempt}`);
    }
    await assert.rejects(guess(), (error: unknown) => {
      assert.ok(error instanceof SDKError, String(error));
      assert.equal(error.statusCode, 429);
      assert.equal(JSON.parse(error.body).error, 'TooManyRequests');
      assert.ok(Number(error.headers.get('retry-after')) >= 1);
      return true;
    });
  });

  it('covers every /v1 route without an organization token, before any other check', async () => {
    const config = loadRuntimeConfig();
    const routeTable = commerceRoutes({
      config,
      logger: strict.logger,
      orm: strict.orm,
      temporal: strict.temporal,
      stripe: createStripeClient(config.stripe),
    }).stack.filter((layer) => layer.methods.length > 0);
    const paramValues: Record<string, string> = { kind: 'checkout' };
    // A token the caller made up: routes that need an organization token refuse it as such.
    const headers = {
      authorization: `Bearer polar_oat_${randomBytes(16).toString('hex')}`,
      'content-type': 'application/json',
    };
    const limited: string[] = [];
    for (const layer of routeTable) {
      const method = layer.methods.find((candidate) => candidate !== 'HEAD') as string;
      const route = `${method} ${String(layer.path)}`;
      // Preflights answer alike to everyone; Stripe's webhook is signed and must never be dropped.
      if (method === 'OPTIONS' || route === 'POST /v1/integrations/stripe/webhook') continue;
      const path = String(layer.path).replace(
        /:(\w+)/g,
        (_match: string, name: string) => paramValues[name] ?? randomUUID(),
      );
      const send = () =>
        fetch(`${strict.url}${path}?type=checkout`, {
          method,
          headers,
          redirect: 'manual',
          ...(method !== 'GET' && { body: '{}' }),
        });
      await clearCounters();
      const first = await send();
      const firstBody = await first.text();
      if (first.status === 401 && JSON.parse(firstBody).detail === tokenRefusal) continue;
      const second = await send();
      await second.body?.cancel();
      assert.equal(
        second.status,
        429,
        `${route} answered ${first.status} ${firstBody}, then ${second.status}`,
      );
      assert.ok(second.headers.get('retry-after'), route);
      limited.push(route);
    }
    assert.deepEqual(limited.toSorted(), [
      'DELETE /v1/customer-portal/customers/me/payment-methods/:id',
      'DELETE /v1/customer-portal/subscriptions/:id',
      'GET /v1/checkout-links/:client_secret/redirect',
      'GET /v1/checkouts/client/:client_secret',
      'GET /v1/customer-portal/benefit-grants/',
      'GET /v1/customer-portal/benefit-grants/:id',
      'GET /v1/customer-portal/customers/me',
      'GET /v1/customer-portal/customers/me/payment-methods',
      'GET /v1/customer-portal/downloadables/',
      'GET /v1/customer-portal/downloadables/files/:grant',
      'GET /v1/customer-portal/license-keys',
      'GET /v1/customer-portal/license-keys/:id',
      'GET /v1/customer-portal/meters/',
      'GET /v1/customer-portal/meters/:id',
      'GET /v1/customer-portal/oauth-accounts/authorize',
      'GET /v1/customer-portal/oauth-accounts/callback',
      'GET /v1/customer-portal/orders',
      'GET /v1/customer-portal/orders/:id',
      'GET /v1/customer-portal/orders/:id/invoice',
      'GET /v1/customer-portal/orders/:id/payment-status',
      'GET /v1/customer-portal/organizations/:slug',
      'GET /v1/customer-portal/subscriptions',
      'GET /v1/customer-portal/subscriptions/:id',
      'GET /v1/files/public/:id/:name',
      'GET /v1/orders/:id/invoice/document',
      'GET /v1/refunds/:id/credit-note/document',
      'PATCH /v1/checkouts/client/:client_secret',
      'PATCH /v1/customer-portal/benefit-grants/:id',
      'PATCH /v1/customer-portal/customers/me',
      'PATCH /v1/customer-portal/orders/:id',
      'PATCH /v1/customer-portal/subscriptions/:id',
      'POST /v1/checkouts/client/:client_secret/authentication',
      'POST /v1/checkouts/client/:client_secret/confirm',
      'POST /v1/customer-portal/customer-session/authenticate',
      'POST /v1/customer-portal/customer-session/request',
      'POST /v1/customer-portal/customers/me/payment-methods',
      'POST /v1/customer-portal/customers/me/payment-methods/confirm',
      'POST /v1/customer-portal/license-keys/activate',
      'POST /v1/customer-portal/license-keys/deactivate',
      'POST /v1/customer-portal/license-keys/validate',
      'POST /v1/customer-portal/orders/:id/confirm-payment',
      'POST /v1/customer-portal/orders/:id/invoice',
      'POST /v1/organizations',
      'PUT /v1/files/uploads/:grant',
    ]);
  });
});

/** How a route that needs an organization token refuses a made-up one (commerce/http/caller.ts). */
const tokenRefusal = 'The access token is invalid or expired.';
