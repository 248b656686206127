import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../domain/scopes.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { type AdversarialWorld, adversarialWorld, type Caller } from './adversarial-fixtures.ts';
import {
  type Fixtures,
  type RouteCase,
  type RouteRequest,
  routeCases,
  type StrangerAnswer,
} from './adversarial-routes.ts';
import { requiredScopeOf } from './http/caller.ts';
import { commerceRoutes } from './routes.ts';
import { startCommerceApi, type TestApi } from './testing.ts';

/**
 * The adversarial suite every /v1 route gets from the route table and `routeCases`: callers of
 * another organization, callers of the victim's own organization without the scope, strangers
 * to a customer's portal and anonymous callers of the public routes are refused the victim's
 * objects, answered in Polar's envelope, and change none of the victim's rows; every list
 * answers hostile query values with 4xx or the caller's own rows, never 500.
 */

/** `METHOD /path` of every /v1 route, with the scope its `scope()` middleware requires. */
function routeTable(api: TestApi): Map<string, Scope | undefined> {
  const router = commerceRoutes({
    config: api.config,
    logger: api.logger,
    orm: api.orm,
    temporal: api.temporal,
    stripe: createStripeClient(api.config.stripe),
  });
  const routes = new Map<string, Scope | undefined>();
  for (const layer of router.stack) {
    const scope = layer.stack.map(requiredScopeOf).find((found) => found !== undefined);
    // HEAD answers as GET; a layer without methods is middleware (the caller's identification).
    for (const method of layer.methods.filter((name) => name !== 'HEAD')) {
      routes.set(`${method} ${layer.path}`, scope);
    }
  }
  return routes;
}

interface Answer {
  status: number;
  text: string;
}

/** Values no list may answer 500 to, URL-encoded (the last two are malformed on purpose). */
const hostileValues = [
  ...[
    "'",
    '"',
    "' OR '1'='1",
    "x') OR true --",
    '?',
    '$1',
    '--',
    ';',
    '; select pg_sleep(1); --',
    '\u0000',
    '%',
    '_',
    '\\',
    '[]',
    'x'.repeat(10_240),
  ].map(encodeURIComponent),
  '%ED%A0%80', // a lone surrogate in UTF-8
  '%zz',
];

/**
 * Metadata filters `[key, value]`, URL-encoded: each hostile value as a key with the next as its
 * value (the 10 KB key and value together would pass Node's 16 KB header limit), and a key whose
 * `?` pulls the value into the SQL text where keys are substituted rather than bound.
 */
const hostileMetadata: [string, string][] = [
  ...hostileValues.map((key, index): [string, string] => [
    key,
    hostileValues[(index + 1) % hostileValues.length] as string,
  ]),
  [encodeURIComponent('?'), encodeURIComponent(' or true or ')],
];

/** `text` URL-decoded, or as it is when malformed. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Parameters every list is also sent, read by it or not. */
const everyListParams = ['organization_id', 'sorting', 'limit', 'unknown_filter'];

/** The victim's id a parameter of that name filters by: a list must not find it for a stranger. */
const victimIdsFor = (param: string, { victim }: Fixtures): string[] =>
  ({
    organization_id: [victim.organizationId],
    customer_id: [victim.buyer.id],
    external_customer_id: [victim.known.externalId],
    product_id: [victim.productId],
    order_id: [victim.orderId],
    checkout_id: [victim.checkoutId],
    subscription_id: [victim.subscriptionId],
    discount_id: [victim.discountId],
    benefit_id: [victim.licenseBenefitId],
    meter_id: [victim.meterId],
    endpoint_id: [victim.webhookEndpointId],
    id: [victim.productId, victim.refundId],
    ids: [victim.fileId],
  })[param] ?? [];

/** Every id and secret of the victim's objects, named by where it sits in the fixtures. */
function markersOf(value: unknown, name: string): [string, string][] {
  if (typeof value === 'string') return [[name, value]];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => markersOf(inner, `${name}.${key}`));
  }
  return [];
}

/** The objects of one customer of the victim, and every one, that another customer must not see. */
function customerPrivateMarkers({ victim }: Fixtures): [string, string][] {
  const { buyer, openCheckout, licenseKey } = victim;
  return markersOf(
    {
      buyer,
      openCheckout,
      licenseKey,
      orderId: victim.orderId,
      checkoutId: victim.checkoutId,
      subscriptionId: victim.subscriptionId,
      paymentId: victim.paymentId,
      refundId: victim.refundId,
      grantId: victim.grantId,
      eventId: victim.eventId,
      customerMeterId: victim.customerMeterId,
    },
    'victim',
  );
}

/**
 * The markers an answer holds: a list's items must hold none; other answers none that the
 * request did not send itself (an error may echo the input back).
 */
function leakedMarkers(answer: Answer, markers: [string, string][], sent: string): string[] {
  let items: string | null = null;
  try {
    const parsed = JSON.parse(answer.text);
    if (Array.isArray(parsed?.items)) items = JSON.stringify(parsed.items);
  } catch {
    // Not JSON (a file, a redirect): read as text.
  }
  return markers
    .filter(([, value]) =>
      items !== null ? items.includes(value) : answer.text.includes(value) && !sent.includes(value),
    )
    .map(([name]) => name);
}

/** What is wrong with a 4xx body: Polar's envelope is `{error, detail}`. */
function envelopeProblem(answer: Answer): string | null {
  try {
    const body = JSON.parse(answer.text);
    if (typeof body?.error === 'string' && 'detail' in body) return null;
  } catch {
    // Falls through: not JSON.
  }
  return `not Polar's error envelope: ${answer.text.slice(0, 200)}`;
}

const expectedStranger = (key: string, routeCase: RouteCase): StrangerAnswer =>
  routeCase.stranger ?? (key.includes(':') ? 'not_found' : 'refused');

/** What is wrong with a stranger's answer, if anything. */
function strangerProblem(
  answer: Answer,
  expected: StrangerAnswer,
  refusedAt: string[] | undefined,
): string | null {
  const { status } = answer;
  if (status >= 500) return `answered ${status}`;
  if (expected === 'not_found' && status !== 404 && status !== 403) {
    return `answered ${status}, not 404 or 403`;
  }
  if (expected === 'refused' && ![400, 401, 403, 404, 422].includes(status)) {
    return `answered ${status}, not a refusal`;
  }
  if (expected === 'refused' && status === 422 && refusedAt) {
    const { detail } = JSON.parse(answer.text) as { detail: { loc: string[] }[] | string };
    const elsewhere = Array.isArray(detail)
      ? detail.filter((issue) => !issue.loc.some((part) => refusedAt.includes(String(part))))
      : [];
    if (elsewhere.length) return `422 about other fields: ${JSON.stringify(elsewhere)}`;
  }
  if (status >= 400 && status !== 405) return envelopeProblem(answer);
  return null;
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/**
 * One query fingerprinting every row of an organization: rows of tables with an
 * organization_id, and rows referencing one of those. Table and column names come from
 * PostgreSQL's catalog, never from input; the organization is its only parameter (repeated).
 */
async function organizationRowsQuery(api: TestApi) {
  const connection = api.orm.em.fork().getConnection();
  const owned = await connection.execute<{ table_name: string }[]>(
    `select table_name from information_schema.columns
     where table_schema = 'public' and column_name = 'organization_id'`,
  );
  const ownedTables = new Set(owned.map((row) => row.table_name));
  const references = await connection.execute<
    { child: string; column_name: string; parent: string }[]
  >(
    `select child.relname as child, attribute.attname as column_name, parent.relname as parent
     from pg_constraint link
     join pg_class child on child.oid = link.conrelid
     join pg_class parent on parent.oid = link.confrelid
     join pg_namespace namespace on namespace.oid = child.relnamespace
     join pg_attribute attribute
       on attribute.attrelid = link.conrelid and attribute.attnum = link.conkey[1]
     where link.contype = 'f' and namespace.nspname = 'public'
       and cardinality(link.conkey) = 1`,
  );
  const conditions = new Map<string, string[]>([['organizations', ['row.id = ?']]]);
  const add = (table: string, condition: string) =>
    conditions.set(table, [...(conditions.get(table) ?? []), condition]);
  for (const table of ownedTables) add(table, 'row.organization_id = ?');
  for (const { child, column_name, parent } of references) {
    if (!ownedTables.has(parent) || column_name === 'organization_id') continue;
    add(
      child,
      `exists (select 1 from "${parent}" owner
               where owner.id = row."${column_name}" and owner.organization_id = ?)`,
    );
  }
  const tables = [...conditions];
  // A token's last use is bookkeeping that the organization's own calls move.
  const text = tables
    .map(
      ([table, where]) =>
        `select '${table}' as table_name, count(*)::int as count,
           coalesce(md5(string_agg((to_jsonb(row) - 'last_used_at')::text, '|'
             order by (to_jsonb(row) - 'last_used_at')::text)), '') as digest
         from "${table}" row where ${where.join(' or ')}`,
    )
    .join(' union all ');
  const placeholders = tables.reduce((count, [, where]) => count + where.length, 0);
  return (organizationId: string) =>
    api.orm.em.fork().transactional(async (tx) => {
      // The estimated cost makes PostgreSQL compile the query (JIT): far dearer than running it.
      await tx.execute('set local jit = off');
      const rows = await tx.execute<{ table_name: string; count: number; digest: string }[]>(
        text,
        Array.from({ length: placeholders }, () => organizationId),
      );
      return new Map(rows.map((row) => [row.table_name, `${row.count}:${row.digest}`]));
    });
}

const changedTables = (before: Map<string, string>, after: Map<string, string>) =>
  [...after].filter(([table, print]) => before.get(table) !== print).map(([table]) => table);

const accessOf = (key: string) => routeCases[key]?.access;
const isPortalRoute = (key: string) => {
  const access = accessOf(key);
  return access !== undefined && 'customerSession' in access;
};

describe('adversarial suite: every /v1 route', () => {
  let api: TestApi;
  let routes: Map<string, Scope | undefined>;
  let world: AdversarialWorld;
  let fixtures: Fixtures;
  let everyMarker: [string, string][];
  let customerPrivate: [string, string][];
  let victimRows: () => Promise<Map<string, string>>;
  /** The victim's rows as the last check left them. */
  let lastRows: Map<string, string>;

  const send = async (caller: Caller | null, method: string, request: RouteRequest) => {
    const text = typeof request.body === 'string';
    const response = await fetch(`${api.url}${request.path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...caller?.headers,
        ...(request.body !== undefined && {
          'content-type': text ? 'text/plain' : 'application/json',
        }),
      },
      body:
        request.body === undefined
          ? undefined
          : text
            ? (request.body as string)
            : JSON.stringify(request.body),
    });
    return { status: response.status, text: await response.text() } satisfies Answer;
  };

  const requestsOf = (key: string): { method: string; requests: RouteRequest[] } => {
    const [method = '', path = ''] = key.split(' ');
    const made = routeCases[key]?.request(fixtures) ?? { path };
    return { method, requests: Array.isArray(made) ? made : [made] };
  };

  /** The scope a route requires: its middleware's, or the one the table declares. */
  const scopeOf = (key: string): Scope | undefined => {
    const access = accessOf(key);
    return routes.get(key) ?? (access && 'scope' in access ? access.scope : undefined);
  };

  /** The victim's rows once its workflows (grants, refund, deliveries) stopped changing them. */
  const settledRows = async () => {
    let previous = await victimRows();
    for (let tries = 0; tries < 60; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const current = await victimRows();
      if (changedTables(previous, current).length === 0) return current;
      previous = current;
    }
    throw new Error('the victim’s rows kept changing');
  };

  /** Problems with the victim's rows since the last check (each change is reported once). */
  const victimRowsChanged = async (): Promise<string[]> => {
    const now = await victimRows();
    const changed = changedTables(lastRows, now);
    lastRows = now;
    return changed.length ? [`changed the victim's ${changed.join(', ')}`] : [];
  };

  before(async () => {
    api = await startCommerceApi();
    routes = routeTable(api);
    world = await adversarialWorld(api);
    fixtures = world.fixtures;
    // An external id is the seller's own text: anyone may send (and so store) the same text.
    everyMarker = markersOf(fixtures.victim, 'victim').filter(
      ([name]) => name !== 'victim.known.externalId',
    );
    customerPrivate = customerPrivateMarkers(fixtures);
    const rowsOf = await organizationRowsQuery(api);
    victimRows = () => rowsOf(fixtures.victim.organizationId);
    lastRows = await settledRows();
  });
  after(async () => {
    await world?.receiver.close();
    await api?.close();
  });

  it('has an entry for every /v1 route, and a route for every entry', () => {
    const missing = [...routes.keys()].filter((key) => !(key in routeCases));
    const unknown = Object.keys(routeCases).filter((key) => !routes.has(key));
    assert.deepEqual(
      { missing, unknown },
      { missing: [], unknown: [] },
      'add each new route to commerce/adversarial-routes.ts',
    );
  });

  it('knows what each route requires: a scope, a customer session, or nothing on purpose', () => {
    const problems: string[] = [];
    for (const [key, routeCase] of Object.entries(routeCases)) {
      const tagged = routes.get(key);
      const access = routeCase.access;
      if (!access && !tagged) problems.push(`${key}: no scope() middleware, none declared`);
      if (access && !('scope' in access) && tagged) {
        problems.push(`${key}: declared without a scope, but requires ${tagged}`);
      }
      if (access && 'scope' in access && tagged && tagged !== access.scope) {
        problems.push(`${key}: declared ${access.scope}, requires ${tagged}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('makes requests the victim may make: its owner’s and its buyer’s reads of them succeed', async () => {
    const problems: string[] = [];
    const reads = Object.keys(routeCases).filter(
      (key) => key.startsWith('GET ') && (scopeOf(key) !== undefined || isPortalRoute(key)),
    );
    await inParallel(reads, 4, async (key) => {
      const { method, requests } = requestsOf(key);
      const caller = isPortalRoute(key) ? world.buyerSession : world.victimOwner;
      for (const request of requests) {
        const answer = await send(caller, method, request);
        if (answer.status !== 200) {
          problems.push(`${key}: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    });
    assert.deepEqual(problems, []);
  });

  describe('another organization, a caller without the scope, another customer, nobody', () => {
    for (const key of Object.keys(routeCases).sort()) {
      it(`${key}: refused the victim's objects, changing none of its rows`, async () => {
        const routeCase = routeCases[key] as RouteCase;
        const { method, requests } = requestsOf(key);
        const scope = scopeOf(key);
        const expected = expectedStranger(key, routeCase);
        /** Each caller, and the status it must get (absent: a stranger's answer). */
        const attempts: { caller: Caller | null; status?: number; markers: [string, string][] }[] =
          [];
        if (scope) {
          attempts.push({ caller: world.attacker, markers: everyMarker });
          attempts.push({ caller: world.attackerOwner, markers: everyMarker });
          attempts.push({ caller: null, status: 401, markers: everyMarker });
          attempts.push({ caller: world.unscoped, status: 403, markers: [] });
          if (scope.endsWith(':write')) {
            attempts.push({ caller: world.readOnly, status: 403, markers: [] });
            attempts.push({ caller: world.member, status: 403, markers: [] });
          }
        } else if (isPortalRoute(key)) {
          const [otherOrganization, otherCustomer] = world.portalStrangers;
          attempts.push({ caller: otherOrganization, markers: everyMarker });
          attempts.push({ caller: otherCustomer, markers: customerPrivate });
          attempts.push({ caller: null, status: 401, markers: everyMarker });
        } else {
          attempts.push({ caller: null, markers: everyMarker });
        }
        const problems: string[] = [];
        await Promise.all(
          attempts.flatMap(({ caller, status, markers }) =>
            requests.map(async (request) => {
              const answer = await send(caller, method, request);
              const who = `${request.path} by ${caller?.name ?? 'an anonymous caller'}`;
              const problem =
                status === undefined
                  ? strangerProblem(answer, expected, routeCase.refusedAt)
                  : answer.status === status
                    ? envelopeProblem(answer)
                    : `answered ${answer.status}, not ${status}: ${answer.text.slice(0, 200)}`;
              if (problem) problems.push(`${who}: ${problem}`);
              const sent = `${request.path} ${JSON.stringify(request.body ?? '')}`;
              const leaked = leakedMarkers(answer, markers, sent);
              if (leaked.length) problems.push(`${who}: leaked ${leaked.join(', ')}`);
            }),
          ),
        );
        problems.push(...(await victimRowsChanged()));
        assert.deepEqual(problems, []);
      });
    }
  });

  describe('hostile list queries: 4xx or the caller’s own rows, never 500', () => {
    for (const [key, routeCase] of Object.entries(routeCases)) {
      const { list } = routeCase;
      if (!list) continue;
      it(`${key}: hostile values in every parameter`, async () => {
        const callers: [Caller, [string, string][]][] = isPortalRoute(key)
          ? [
              [world.portalStrangers[0], everyMarker],
              [world.portalStrangers[1], customerPrivate],
            ]
          : [[world.attacker, everyMarker]];
        const base = list.path?.(fixtures) ?? key.split(' ')[1] ?? '';
        const [path = '', query = ''] = base.split('?');
        /** The base path with one more parameter, replacing the base query's own value of it. */
        const withParam = (encodedName: string, encodedValue: string) => {
          const name = decoded(encodedName);
          const kept = query
            .split('&')
            .filter((pair) => pair && decoded(pair.split('=')[0] ?? '') !== name);
          return `${path}?${[...kept, `${encodedName}=${encodedValue}`].join('&')}`;
        };
        const params = [...new Set([...list.params, ...everyListParams])];
        const urls = params.flatMap((param) =>
          [...hostileValues, ...victimIdsFor(param, fixtures)].map((value) =>
            withParam(encodeURIComponent(param), value),
          ),
        );
        for (const [key, value] of hostileMetadata) {
          urls.push(withParam(`metadata%5B${key}%5D`, value));
        }
        const attacks = callers.flatMap(([caller, markers]) =>
          urls.map((url) => ({ url, caller, markers })),
        );
        const problems: string[] = [];
        await inParallel(attacks, 6, async ({ url, caller, markers }) => {
          const answer = await send(caller, 'GET', { path: url });
          const shown = url.length > 160 ? `${url.slice(0, 160)}…` : url;
          if (answer.status >= 500) problems.push(`${shown}: answered ${answer.status}`);
          else if (answer.status >= 400) {
            const problem = envelopeProblem(answer);
            if (problem) problems.push(`${shown}: ${problem}`);
          }
          const leaked = leakedMarkers(answer, markers, decoded(url));
          if (leaked.length) {
            problems.push(`${shown} by ${caller.name}: leaked ${leaked.join(', ')}`);
          }
        });
        problems.push(...(await victimRowsChanged()));
        assert.deepEqual(problems, []);
      });
    }
  });
});
