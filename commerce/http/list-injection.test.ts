/**
 * Issue 16, item 1: SQL injection through list filters. A `?metadata[<key>]=…` key holding `?`
 * used to move the next value out of its string literal (MikroORM formatted the key into the
 * text, then formatted the text again), which let one organization's token read another's rows
 * and run statements of its own. Each list is attacked here as the report did, with seller B's
 * token against seller A's rows; and awkward keys and values still filter exactly.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Customer, Subscription } from '../../db/entities/index.ts';
import { paidOrder } from '../benefit-grants/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** Metadata every seller's rows carry: the key and value are as awkward as SQL text gets. */
const awkwardKey = "we?ird'key\\ $1 --";
const awkwardValue = "v?al'ue\\ ?? ; --";

/** The lists that take `metadata[...]` filters. */
const lists = [
  'customers',
  'orders',
  'products',
  'subscriptions',
  'benefits',
  'meters',
  'events',
] as const;
type List = (typeof lists)[number];

/** Writes the two statements of the old hole could run: a marker the test looks for. */
const marker = `injected-${randomUUID().slice(0, 8)}`;

/**
 * `metadata[<key>]=<values>` filters crafted against the old formatting, each with what it did:
 * the key's `?` took the first value, which closed the key's literal early.
 */
const craftedFilters: { what: string; key: string; values: string[] }[] = [
  {
    what: 'every organization’s rows (the `or true` outside any literal)',
    key: 'k?',
    values: [' is null or true --', 'y'],
  },
  {
    what: 'a second statement that writes',
    key: 'k?',
    values: [` is null; update customers set name = $$${marker}$$; --`, 'y'],
  },
  {
    what: 'a second statement that sleeps',
    key: 'k?',
    values: [' is null; select pg_sleep(2); --', 'y'],
  },
  { what: 'placeholders in the key and values', key: '??k?$1', values: ['?', '??', '$1'] },
  { what: 'quotes and backslashes', key: "k'\\", values: ["') or ('1'='1", '\\', "\\'"] },
  { what: 'comments and statement ends', key: 'k;--', values: ['--', ';', '/*', '*/'] },
];

/** Hostile `?query=` searches: none may answer 500 or another organization's rows. */
const hostileSearches = [
  '?',
  "'",
  "' or '1'='1",
  '$1',
  '--',
  ';',
  '\\',
  "\\' or true --",
  '%',
  '_',
  `?' ; update customers set name = $$${marker}$$; --`,
  "'); select pg_sleep(2); --",
  'x'.repeat(10_000),
];

/** The lists with a `?query=` search. */
const searchLists = [
  'customers',
  'products',
  'benefits',
  'meters',
  'events/names',
  'discounts',
  'custom-fields',
];

const query = (parameters: [string, string][]) =>
  parameters
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');

const metadataQuery = (key: string, values: string[]) =>
  query(values.map((value) => [`metadata[${key}]`, value]));

describe('list filters and SQL injection (issue 16, item 1)', () => {
  let api: TestApi;
  let sellerA: Seller;
  let sellerB: Seller;
  /** The ids of each seller's rows, by list. */
  const rows = new Map<Seller, Record<List, Set<string>>>();

  /** One row of every list for the seller, each with `metadata`; answers their ids. */
  async function seed(seller: Seller, metadata: Record<string, string>) {
    const tag = randomUUID().slice(0, 8);
    const customer = await seller.polar.customers.create({
      email: `buyer-${tag}@example.com`,
      externalId: `ext-${tag}`,
      metadata,
    });
    const product = await seller.polar.products.create({
      name: `Plan ${tag}`,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1000 }],
      metadata,
    });
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: `Perk ${tag}`,
      properties: { note: null },
      metadata,
    });
    const meter = await seller.polar.meters.create({
      name: `Calls ${tag}`,
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'call' }],
      },
      aggregation: { func: 'count' },
      metadata,
    });
    await seller.polar.events.ingest({
      events: [{ name: 'call', externalCustomerId: `ext-${tag}`, metadata }],
    });
    const order = await paidOrder(api, seller, customer.id, product.id, metadata);
    const em = api.orm.em.fork();
    const subscription = em.create(Subscription, {
      organization: seller.organizationId,
      customer: customer.id,
      product: product.id,
      status: 'active',
      amount: 1000,
      currency: 'usd',
      recurringInterval: 'month',
      currentPeriodStart: new Date(),
      metadata,
    });
    await em.flush();
    const events = await callV1(api, seller.token, 'GET', '/v1/events/?limit=100');
    return {
      customers: new Set([customer.id]),
      orders: new Set([order.id]),
      products: new Set([product.id]),
      subscriptions: new Set([subscription.id]),
      benefits: new Set([benefit.id]),
      meters: new Set([meter.id]),
      events: new Set<string>(
        events.body.items
          .filter((event: { name: string }) => event.name === 'call')
          .map((event: { id: string }) => event.id),
      ),
    };
  }

  before(async () => {
    api = await startCommerceApi();
    sellerA = await createSeller(api);
    sellerB = await createSeller(api);
    rows.set(sellerA, await seed(sellerA, { [awkwardKey]: awkwardValue, k: 'y', tier: 'gold' }));
    rows.set(sellerB, await seed(sellerB, { tier: 'silver' }));
  });
  after(() => api.close());

  /** The ids a list answered, after checking that it answered 200 with a list. */
  async function listed(seller: Seller, path: string): Promise<string[]> {
    const { status, body } = await callV1(api, seller.token, 'GET', path);
    assert.equal(status, 200, `${path}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.items.map((item: { id: string }) => item.id);
  }

  const idsOf = (seller: Seller, list: List) => rows.get(seller)?.[list] ?? new Set<string>();

  it('finds rows by an awkward metadata key and value exactly, in every list', async () => {
    for (const list of lists) {
      const path = (key: string, values: string[]) =>
        `/v1/${list}/?limit=100&${metadataQuery(key, values)}`;
      assert.deepEqual(
        await listed(sellerA, path(awkwardKey, [awkwardValue])),
        [...idsOf(sellerA, list)],
        `${list}: the exact key and value`,
      );
      assert.deepEqual(
        await listed(sellerA, path(awkwardKey, ['nothing', awkwardValue])),
        [...idsOf(sellerA, list)],
        `${list}: the value among others`,
      );
      for (const [key, value] of [
        [awkwardKey, awkwardValue.slice(0, -1)],
        [awkwardKey.slice(1), awkwardValue],
        ['tier', awkwardValue],
        [awkwardKey, 'gold'],
      ] as const) {
        assert.deepEqual(await listed(sellerA, path(key, [value])), [], `${list}: ${key}=${value}`);
      }
      // B's token finds nothing of A's, even with A's exact metadata.
      assert.deepEqual(await listed(sellerB, path(awkwardKey, [awkwardValue])), [], list);
    }
  });

  it('answers crafted metadata keys with B’s rows only, and runs no statement of the attacker', async () => {
    const answers: string[] = [];
    for (const list of lists) {
      for (const { what, key, values } of craftedFilters) {
        const path = `/v1/${list}/?limit=100&${metadataQuery(key, values)}`;
        const { status, body } = await callV1(api, sellerB.token, 'GET', path);
        // None of B's rows has these keys: a row found at all came from an injected condition.
        if (status !== 200 || body.items.length) {
          answers.push(`${list}, ${what}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
        }
      }
    }
    const em = api.orm.em.fork();
    assert.equal(await em.count(Customer, { name: marker }), 0, 'the injected update ran');
    assert.deepEqual(answers, []);
  });

  it('keeps a filter on B’s own metadata working beside crafted keys', async () => {
    for (const list of lists) {
      const path = `/v1/${list}/?limit=100&${query([['metadata[tier]', 'silver']])}`;
      assert.deepEqual(await listed(sellerB, path), [...idsOf(sellerB, list)], list);
    }
  });

  it('answers hostile searches with B’s rows only, never 500', async () => {
    const aIds = new Set(Object.values(rows.get(sellerA) ?? {}).flatMap((ids) => [...ids]));
    for (const list of searchLists) {
      for (const search of hostileSearches) {
        const path = `/v1/${list}/?${query([['query', search]])}`;
        const found = await listed(sellerB, path);
        assert.deepEqual(
          found.filter((id) => aIds.has(id)),
          [],
          `${list} ?query=${search.slice(0, 40)}`,
        );
      }
    }
    assert.equal(await api.orm.em.fork().count(Customer, { name: marker }), 0);
  });

  it('refuses NUL in a search, a metadata key or value with 422', async () => {
    const attempts = [
      '/v1/customers/?query=a%00b',
      `/v1/customers/?${metadataQuery('k\0', ['y'])}`,
      `/v1/orders/?${metadataQuery('k', ['y\0'])}`,
      `/v1/events/?${metadataQuery('k\0?', ['y'])}`,
      '/v1/products/?query=%00',
    ];
    for (const path of attempts) {
      const { status, body } = await callV1(api, sellerB.token, 'GET', path);
      assert.equal(status, 422, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.detail[0].loc[0], 'query');
    }
  });

  it('refuses an unknown sort key with 422 instead of ordering by it', async () => {
    for (const list of lists) {
      const sorting = 'created_at; select pg_sleep(2); --';
      const { status } = await callV1(
        api,
        sellerB.token,
        'GET',
        `/v1/${list}/?${query([['sorting', sorting]])}`,
      );
      assert.equal(status, 422, list);
    }
  });
});
