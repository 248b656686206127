import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RFCDate } from '@polar-sh/sdk/types/rfcdate.js';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { commerceOperations } from '../operations.ts';
import { commerceRoutes } from '../routes.ts';
import {
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';
import { requiredScopeOf } from './caller.ts';
import type { OpenApiDocument, Operation } from './openapi.ts';

/** `METHOD /path` with the trailing slash Koa also answers dropped (`/v1/products/` is `/v1/products`). */
const routeKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.length > 1 ? path.replace(/\/$/, '') : path}`;

/** Every route of the /v1 routers, with the scope its `scope()` middleware requires. */
function registeredRoutes(api: TestApi): Map<string, string | undefined> {
  const router = commerceRoutes({ ...api, stripe: createStripeClient(api.config.stripe) });
  const routes = new Map<string, string | undefined>();
  for (const layer of router.stack) {
    const scope = layer.stack.map(requiredScopeOf).find((found) => found !== undefined);
    // HEAD answers as GET; OPTIONS are CORS preflights; a layer without methods is middleware.
    for (const method of layer.methods.filter((name) => !['HEAD', 'OPTIONS'].includes(name))) {
      routes.set(routeKey(method, String(layer.path)), scope);
    }
  }
  return routes;
}

/** The operation answering `method` on a concrete path (`/v1/products/<uuid>`), by its template. */
function operationFor(method: string, url: string): Operation | undefined {
  const path = new URL(url).pathname.replace(/\/$/, '');
  return commerceOperations.find((operation) => {
    if (operation.method !== method.toLowerCase()) return false;
    const template = new RegExp(`^${operation.path.replace(/:\w+/g, '[^/]+')}$`);
    return template.test(path);
  });
}

describe('the OpenAPI contract of /v1 and the /docs reference', () => {
  let api: TestApi;
  let seller: Seller;
  /** Every JSON answer the SDK journey got, validated afterwards against its operation. */
  const answers: { method: string; url: string; status: number; body: unknown }[] = [];

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  it('documents every registered /v1 route, and only those, with the scope the route requires', () => {
    const routes = registeredRoutes(api);
    const documented = new Map(
      commerceOperations.map((operation) => [
        routeKey(operation.method, operation.path),
        operation,
      ]),
    );
    const undocumented = [...routes.keys()].filter((key) => !documented.has(key));
    const unrouted = [...documented.keys()].filter((key) => !routes.has(key));
    assert.deepEqual(
      { undocumented, unrouted },
      { undocumented: [], unrouted: [] },
      'each route needs an operation in its area’s operations.ts (commerce/operations.ts lists them)',
    );
    for (const [key, scope] of routes) {
      const operation = documented.get(key);
      if (!scope || !operation) continue;
      assert.ok(operation.scopes?.includes(scope), `${key} requires ${scope}`);
    }
  });

  it('serves an OpenAPI 3.1 document whose operations each say what they answer', async () => {
    const response = await fetch(`${api.url}/v1/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    assert.match(response.headers.get('cache-control') ?? '', /max-age/);
    const document = (await response.json()) as OpenApiDocument;
    assert.match(document.openapi, /^3\.1\.\d+$/);
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(
      document.paths as unknown as Record<string, Record<string, OperationObject>>,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(!operationIds.has(operation.operationId), `${where}: operationId used twice`);
        operationIds.add(operation.operationId);
        const [status, success] = Object.entries(operation.responses).find(
          ([code]) => code.startsWith('2') || code.startsWith('3'),
        ) ?? [undefined, undefined];
        assert.ok(status && success, `${where} documents no success answer`);
        const json = success.content?.['application/json'];
        if (status !== '204' && status[0] === '2' && json) {
          assert.ok(Object.keys(json.schema).length > 0, `${where} has an empty answer schema`);
        }
        for (const name of path.matchAll(/\{(\w+)\}/g)) {
          assert.ok(
            operation.parameters?.some((parameter) => parameter.name === name[1]),
            `${where} does not document its path parameter ${name[1]}`,
          );
        }
      }
    }
    const refs = JSON.stringify(document).matchAll(/"#\/components\/schemas\/(\w+)"/g);
    for (const [, name] of refs) {
      assert.ok(document.components.schemas[name as string], `unknown component ${name}`);
    }
    // A second request holding the ETag is told nothing changed.
    const again = await fetch(`${api.url}/v1/openapi.json`, {
      headers: { 'if-none-match': response.headers.get('etag') ?? '' },
    });
    assert.equal(again.status, 304);
  });

  it('serves the /api/auth document', async () => {
    const response = await fetch(`${api.url}/api/auth/openapi.json`);
    assert.equal(response.status, 200);
    const document = (await response.json()) as OpenApiDocument;
    assert.match(document.openapi, /^3\.1\.\d+$/);
    assert.ok(Object.keys(document.paths).every((path) => path.startsWith('/api/auth/')));
  });

  it('answers the SDK journey over its areas as the operations’ response schemas say', async () => {
    const polar = polarRecording(api, seller.token, answers);
    const meter = await polar.meters.create({
      name: 'API calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'call' }],
      },
      aggregation: { func: 'count' },
    });
    await polar.meters.get({ id: meter.id });
    await polar.meters.list({});
    const benefit = await polar.benefits.create({
      type: 'custom',
      description: 'Support',
      properties: { note: 'Write to us' },
    });
    await polar.benefits.get({ id: benefit.id });
    await polar.benefits.list({});
    const field = await polar.customFields.create({
      type: 'text',
      slug: 'company',
      name: 'Company',
      properties: {},
    });
    await polar.customFields.get({ id: field.id });
    await polar.customFields.list({});
    const product = await polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500, priceCurrency: 'usd' }],
      attachedCustomFields: [{ customFieldId: field.id, required: false }],
    });
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    await polar.products.get({ id: product.id });
    await polar.products.list({});
    const discount = await polar.discounts.create({
      type: 'percentage',
      basisPoints: 1000,
      duration: 'repeating',
      durationInMonths: 3,
      name: 'Launch',
      code: `LAUNCH${Date.now()}`,
      products: [product.id],
    });
    await polar.discounts.get({ id: discount.id });
    await polar.discounts.list({});
    const link = await polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [product.id],
      discountId: discount.id,
    });
    await polar.checkoutLinks.get({ id: link.id });
    await polar.checkoutLinks.list({});
    const checkout = await polar.checkouts.create({ products: [product.id] });
    await polar.checkouts.get({ id: checkout.id });
    await polar.checkouts.list({});
    await polar.checkouts.clientGet({ clientSecret: checkout.clientSecret });
    await polar.checkouts.clientUpdate({
      clientSecret: checkout.clientSecret,
      checkoutUpdatePublic: { customerEmail: 'buyer@example.com' },
    });
    await polar.events.ingest({ events: [{ name: 'call', externalCustomerId: 'someone' }] });
    const events = await polar.events.list({});
    for await (const page of events) {
      const [event] = page.result.items;
      if (event) await polar.events.get({ id: event.id });
      break;
    }
    await polar.events.listNames({});
    await polar.metrics.limits();
    await polar.metrics.get({
      startDate: new RFCDate('2026-01-01'),
      endDate: new RFCDate('2026-01-31'),
      interval: 'week',
    });
    await polar.files.list({});
    const organization = await polar.organizations.get({ id: seller.organizationId });
    await polar.organizations.list({});
    await polar.customerPortal.organizations.get({ slug: organization.slug });

    assert.ok(answers.length >= 30, `only ${answers.length} answers were recorded`);
    const problems: string[] = [];
    for (const answer of answers) {
      const where = `${answer.method} ${new URL(answer.url).pathname}`;
      const operation = operationFor(answer.method, answer.url);
      if (!operation) {
        problems.push(`${where}: no operation`);
        continue;
      }
      assert.equal(answer.status, operation.response.status, where);
      const checked = operation.response.schema?.safeParse(answer.body);
      if (checked && !checked.success) {
        problems.push(`${where}: ${JSON.stringify(checked.error.issues.slice(0, 3))}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('serves the reference page, its script and Swagger UI’s assets, within the CSP', async () => {
    const page = await fetch(`${api.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    const html = await page.text();
    // No inline script: every script has a src under /docs/assets.
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((match) => match[1] ?? '');
    assert.ok(scripts.length >= 3);
    assert.ok(scripts.every((attributes) => /src="\/docs\/assets\//.test(attributes)));
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    const types: Record<string, RegExp> = {
      js: /javascript/,
      css: /text\/css/,
      png: /image\/png/,
    };
    for (const asset of assets) {
      const response = await fetch(`${api.url}${asset}`);
      assert.equal(response.status, 200, asset);
      const extension = asset.split('.').pop() as string;
      assert.match(response.headers.get('content-type') ?? '', types[extension] ?? /./, asset);
      assert.ok((await response.arrayBuffer()).byteLength > 0, asset);
    }
    const script = await (await fetch(`${api.url}/docs/assets/reference.js`)).text();
    assert.match(script, /\/v1\/openapi\.json/);
    assert.match(script, /\/api\/auth\/openapi\.json/);
    assert.equal((await fetch(`${api.url}/docs/assets/package.json`)).status, 404);
  });
});

interface OperationObject {
  operationId: string;
  parameters?: { name: string }[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}

/** The SDK, recording each JSON answer it gets (method, URL, status, body). */
function polarRecording(api: TestApi, token: string, answers: unknown[]) {
  const polar = polarClient(api.url, token);
  polar._options.httpClient?.addHook('response', async (response, request) => {
    if (!response.headers.get('content-type')?.includes('application/json')) return;
    const body = await response.clone().json();
    answers.push({ method: request.method, url: request.url, status: response.status, body });
  });
  return polar;
}
