import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { type SignedInPerson, signedInOwner } from '../access-tokens/testing.ts';
import { commerceOperations } from '../operations.ts';
import { commerceRoutes } from '../routes.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { type ListParameters, listParametersOf } from './listing.ts';
import { type OpenApiDocument, type Operation, openApiPath } from './openapi.ts';

/** A documented query parameter, as /v1/openapi.json says it. */
interface QueryParameterObject {
  name: string;
  in: string;
  required: boolean;
  style?: string;
  schema: { enum?: string[] };
}

/** A GET route of the /v1 routers with its operation and the query its handler reads, if a list. */
interface GetRoute {
  key: string;
  path: string;
  operation: Operation | undefined;
  parameters: ListParameters<unknown> | undefined;
  documented: QueryParameterObject[];
}

const routeKey = (path: string) => `GET ${path.length > 1 ? path.replace(/\/$/, '') : path}`;

function getRoutes(api: TestApi, document: OpenApiDocument): GetRoute[] {
  const router = commerceRoutes({ ...api, stripe: createStripeClient(api.config.stripe) });
  return router.stack
    .filter((layer) => layer.methods.includes('GET'))
    .map((layer) => {
      const path = String(layer.path);
      const key = routeKey(path);
      const operation = commerceOperations.find(
        (candidate) => candidate.method === 'get' && routeKey(candidate.path) === key,
      );
      const item = operation && document.paths[openApiPath(operation.path)];
      const parameters = (item?.get?.parameters ?? []) as QueryParameterObject[];
      return {
        key,
        path,
        operation,
        parameters: layer.stack.map(listParametersOf).find(Boolean),
        documented: parameters.filter((parameter) => parameter.in === 'query'),
      };
    });
}

// Every read of a request's `ctx.query[name]` while `recording` is set (Koa's request prototype
// is shared by every app in the process, the test API's too).
const koaRequest = createRequire(import.meta.url)('koa/lib/request.js') as object;
const queryProperty = Object.getOwnPropertyDescriptor(koaRequest, 'query') as PropertyDescriptor;
let recording: Set<string> | undefined;

function recordQueryReads() {
  Object.defineProperty(koaRequest, 'query', {
    ...queryProperty,
    get() {
      const query = queryProperty.get?.call(this) as Record<string, unknown>;
      const names = recording;
      if (!names) return query;
      return new Proxy(query, {
        get(target, name, receiver) {
          if (typeof name === 'string') names.add(name);
          return Reflect.get(target, name, receiver);
        },
      });
    },
  });
}

describe('the query parameters of list operations', () => {
  let api: TestApi;
  let seller: Seller;
  let customerToken: string;
  // The dashboard's owner: every /v1 list answers it (access tokens only a signed-in member).
  let owner: SignedInPerson;
  let routes: GetRoute[];

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    owner = await signedInOwner(api);
    const customer = await seller.polar.customers.create({
      email: `lists-${randomUUID()}@example.com`,
    });
    ({ token: customerToken } = await seller.polar.customerSessions.create({
      customerId: customer.id,
    }));
    const document = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    routes = getRoutes(api, document);
    recordQueryReads();
  });
  after(async () => {
    Object.defineProperty(koaRequest, 'query', queryProperty);
    await api.close();
  });

  it('are documented from the very parameters each list route reads its query with', () => {
    const lists = routes.filter((route) => route.parameters);
    assert.ok(lists.length >= 30, `only ${lists.length} list routes`);
    const problems: string[] = [];
    for (const { key, operation, parameters, documented } of routes) {
      if (!parameters) {
        // A paged answer is a list: it reads its query through listRoute or readsList.
        if (documented.some((parameter) => parameter.name === 'page')) {
          problems.push(`${key} reads its query by hand`);
        }
      } else if (operation?.query !== parameters.schema) {
        problems.push(`${key}: its operation's query is not the schema of the parameters it reads`);
      } else {
        const names = documented.map((parameter) => parameter.name).sort();
        const read = Object.keys(parameters.schema.shape).sort();
        if (names.join() !== read.join())
          problems.push(`${key} documents [${names}], reads [${read}]`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('are each read by the route, which reads no other', async () => {
    // What every request reads whatever its route (none today): a route not listing anything.
    const baseline = await namesRead(`/v1/products/${randomUUID()}`);
    const problems: string[] = [];
    for (const route of routes.filter((candidate) => candidate.parameters)) {
      const portal = route.path.startsWith('/v1/customer-portal/');
      // A required parameter (a workflow list's type) is given; any other is left out.
      const required = route.documented
        .filter((parameter) => parameter.required)
        .map((parameter): [string, string] => [parameter.name, parameter.schema.enum?.[0] ?? 'x']);
      const path = route.path.replace(/:\w+/g, randomUUID());
      const read = await namesRead(`${path}?${new URLSearchParams(required)}`, portal);
      const readByRoute = [...read].filter((name) => !baseline.has(name)).sort();
      // A deepObject parameter (`metadata[key]`) is found by walking the query, not by its name.
      const documented = route.documented
        .filter((parameter) => parameter.style !== 'deepObject')
        .map((parameter) => parameter.name)
        .sort();
      if (JSON.stringify(readByRoute) !== JSON.stringify(documented)) {
        problems.push(`${route.key} reads [${readByRoute}], documents [${documented}]`);
      }
    }
    assert.deepEqual(problems, []);
  });

  /** The query parameter names a GET of `path` reads, by the owner or the portal's customer. */
  async function namesRead(path: string, portal = false): Promise<Set<string>> {
    const names = new Set<string>();
    recording = names;
    try {
      const response = portal
        ? await fetch(`${api.url}${path}`, {
            headers: { authorization: `Bearer ${customerToken}` },
          })
        : await owner.fetch(`${api.url}${path}`);
      await response.arrayBuffer();
      assert.ok([200, 404].includes(response.status), `${path} answered ${response.status}`);
      return names;
    } finally {
      recording = undefined;
    }
  }
});
