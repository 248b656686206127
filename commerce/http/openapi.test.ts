import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RFCDate } from '@polar-sh/sdk/types/rfcdate.js';
import { swaggerUiLogoStyle } from '../../api/middleware/security-headers.ts';
import { swaggerUiDir } from '../../api/routes/api-reference.ts';
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
import { answerProblem, type OpenApiDocument } from './openapi.ts';

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

describe('the OpenAPI contract of /v1 and the /docs reference', () => {
  let api: TestApi;
  let seller: Seller;

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

  // The SDK client checks each answer against the document (commerce/testing.ts): a journey
  // over the areas fails on the first answer that differs.
  it('answers the SDK journey over its areas as the operations’ response schemas say', async () => {
    const polar = seller.polar;
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
  });

  it('tells what differs in an answer: the operation, the status and the bad field', () => {
    const api = { operations: commerceOperations, envelope: 'commerce' } as const;
    const product = `/v1/products/${randomUUID()}`;
    const answer = (status: number, body: unknown) => ({
      method: 'GET',
      path: product,
      status,
      body,
    });
    assert.match(
      answerProblem(api, answer(200, { id: randomUUID(), name: 7 })) ?? '',
      /^GET \/v1\/products\/\S+ answered 200 \(products:get\): .*\bname: /,
    );
    assert.match(
      answerProblem(api, answer(404, { error: 'ResourceNotFound', detail: 42 })) ?? '',
      /\(products:get\): detail: /,
    );
    assert.match(
      answerProblem(api, answer(404, { error: 'ResourceNotFound', detail: 'Not found' })) ?? '',
      /^$/,
    );
    assert.match(
      answerProblem(api, answer(409, { error: 'Conflict', detail: 'No' })) ?? '',
      /\(products:get\): status not documented/,
    );
    assert.match(
      answerProblem(api, { ...answer(200, {}), path: '/v1/nowhere' }) ?? '',
      /no operation documents this route/,
    );
    assert.match(
      answerProblem(api, answer(422, { error: 'RequestValidationError', detail: [], extra: 1 })) ??
        '',
      /undocumented fields extra/,
    );
  });

  it('fails the SDK call whose answer differs from the document', async () => {
    // A server answering a product without most of its fields, in place of Tollgate.
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ id: randomUUID(), name: 'Pro' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const polar = polarClient(`http://127.0.0.1:${port}`, seller.token);
      await assert.rejects(polar.products.get({ id: randomUUID() }), (error: Error) => {
        assert.match(error.message, /differs from the OpenAPI document: .*\(products:get\)/);
        return true;
      });
    } finally {
      server.close();
    }
  });

  it('serves the reference page, its script and Swagger UI’s assets, within the CSP', async () => {
    const page = await fetch(`${api.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self';/);
    // Swagger UI renders one inline style (its logo's), allowed by its hash on this page only.
    const bundles = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'].map((name) =>
      readFileSync(join(swaggerUiDir, name), 'utf8'),
    );
    const inlineStyles = bundles.flatMap((code) =>
      [...code.matchAll(/createElement\("style",null,"([^"]*)"\)/g)].map((match) => match[1]),
    );
    assert.deepEqual(inlineStyles, [swaggerUiLogoStyle]);
    const logoHash = createHash('sha256').update(swaggerUiLogoStyle).digest('base64');
    assert.ok(csp.includes(`style-src 'self' 'sha256-${logoHash}';`), csp);
    const otherPage = await fetch(`${api.url}/v1/openapi.json`);
    assert.match(otherPage.headers.get('content-security-policy') ?? '', /style-src 'self';/);
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
