import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Meter } from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('usage meters (/v1/meters)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  const meterCount = (organizationId: string) =>
    api.orm.em.fork().count(Meter, { organization: organizationId });

  it('creates a meter with a nested filter and reads it back', async () => {
    const filter = {
      conjunction: 'and' as const,
      clauses: [
        { property: 'name', operator: 'eq' as const, value: 'api_call' },
        {
          conjunction: 'or' as const,
          clauses: [
            { property: 'metadata.model', operator: 'like' as const, value: 'gpt' },
            { property: 'tokens', operator: 'gte' as const, value: 100 },
            { property: 'cached', operator: 'ne' as const, value: true },
          ],
        },
      ],
    };
    const created = await seller.polar.meters.create({
      name: 'API calls',
      filter,
      aggregation: { func: 'sum', property: 'tokens' },
      metadata: { team: 'core' },
    });
    assert.equal(created.organizationId, seller.organizationId);
    assert.deepEqual(created.filter, filter);
    assert.deepEqual(created.aggregation, { func: 'sum', property: 'tokens' });
    assert.equal(created.archivedAt, null);
    assert.equal(created.modifiedAt, null);
    assert.deepEqual(created.metadata, { team: 'core' });

    const fetched = await seller.polar.meters.get({ id: created.id });
    assert.deepEqual(fetched.filter, filter);
    assert.equal(fetched.name, 'API calls');
  });

  it('stores every aggregation function as sent', async () => {
    const aggregations = [
      { func: 'count' },
      { func: 'sum', property: 'amount' },
      { func: 'max', property: 'amount' },
      { func: 'min', property: 'amount' },
      { func: 'avg', property: 'amount' },
      { func: 'unique', property: 'user_id' },
    ] as const;
    for (const aggregation of aggregations) {
      const meter = await seller.polar.meters.create({
        name: `Meter ${aggregation.func}`,
        filter: { conjunction: 'or', clauses: [] },
        aggregation,
      });
      const fetched = await seller.polar.meters.get({ id: meter.id });
      assert.deepEqual(fetched.aggregation, aggregation);
    }
  });

  it('updates name, filter, aggregation and metadata, and archives and unarchives', async () => {
    const meter = await seller.polar.meters.create({
      name: 'Storage',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    const updated = await seller.polar.meters.update({
      id: meter.id,
      meterUpdate: {
        name: 'Storage GB',
        filter: {
          conjunction: 'and',
          clauses: [{ property: 'name', operator: 'eq', value: 'storage' }],
        },
        aggregation: { func: 'max', property: 'gigabytes' },
        metadata: { unit: 'GB' },
      },
    });
    assert.equal(updated.name, 'Storage GB');
    assert.equal(updated.filter.clauses.length, 1);
    assert.deepEqual(updated.aggregation, { func: 'max', property: 'gigabytes' });
    assert.deepEqual(updated.metadata, { unit: 'GB' });
    assert.ok(updated.modifiedAt instanceof Date);

    const archived = await seller.polar.meters.update({
      id: meter.id,
      meterUpdate: { isArchived: true },
    });
    assert.ok(archived.archivedAt instanceof Date);
    assert.equal(archived.name, 'Storage GB', 'fields not sent keep their value');
    const unarchived = await seller.polar.meters.update({
      id: meter.id,
      meterUpdate: { isArchived: false },
    });
    assert.equal(unarchived.archivedAt, null);
  });

  it('lists by name by default, and filters by query, archived state and metadata', async () => {
    const tag = `${Date.now()}`;
    const make = (name: string, metadata: Record<string, string | number>) =>
      other.polar.meters.create({
        name: `${name} ${tag}`,
        filter: { conjunction: 'and', clauses: [] },
        aggregation: { func: 'count' },
        metadata,
      });
    const bravo = await make('Bravo', { tier: 'gold', rank: 2 });
    const alpha = await make('Alpha', { tier: 'silver', rank: 1 });
    const charlie = await make('Charlie', { tier: 'gold', rank: 3 });
    await other.polar.meters.update({ id: charlie.id, meterUpdate: { isArchived: true } });

    const names = async (request: Parameters<Seller['polar']['meters']['list']>[0]) => {
      const page = await other.polar.meters.list(request);
      return page.result.items.map((meter) => meter.id);
    };
    assert.deepEqual(await names({}), [alpha.id, bravo.id, charlie.id]);
    assert.deepEqual(await names({ sorting: ['-created_at'] }), [charlie.id, alpha.id, bravo.id]);
    assert.deepEqual(await names({ query: 'brav' }), [bravo.id]);
    assert.deepEqual(await names({ isArchived: false }), [alpha.id, bravo.id]);
    assert.deepEqual(await names({ isArchived: true }), [charlie.id]);
    assert.deepEqual(await names({ metadata: { tier: 'gold' } }), [bravo.id, charlie.id]);
    assert.deepEqual(await names({ metadata: { rank: [1, 3] } }), [alpha.id, charlie.id]);
    assert.deepEqual(await names({ organizationId: seller.organizationId }), []);

    const firstPage = await other.polar.meters.list({ limit: 2 });
    assert.equal(firstPage.result.pagination.totalCount, 3);
    assert.equal(firstPage.result.pagination.maxPage, 2);
  });

  it('refuses bad filters and aggregations with 422 at their path, writing nothing', async () => {
    const valid = {
      name: 'Refused meter',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'x' }] },
      aggregation: { func: 'count' },
    };
    const cases: [label: string, body: object, loc: (string | number)[]][] = [
      [
        'unknown operator in a nested clause',
        {
          ...valid,
          filter: {
            conjunction: 'and',
            clauses: [
              { conjunction: 'or', clauses: [{ property: 'x', operator: 'contains', value: 1 }] },
            ],
          },
        },
        ['body', 'filter', 'clauses', 0, 'clauses', 0, 'operator'],
      ],
      [
        'unknown conjunction',
        { ...valid, filter: { conjunction: 'xor', clauses: [] } },
        ['body', 'filter', 'conjunction'],
      ],
      [
        'value of 1001 characters',
        {
          ...valid,
          filter: {
            conjunction: 'and',
            clauses: [{ property: 'model', operator: 'eq', value: 'x'.repeat(1001) }],
          },
        },
        ['body', 'filter', 'clauses', 0, 'value'],
      ],
      [
        'integer beyond 32 bits',
        {
          ...valid,
          filter: {
            conjunction: 'and',
            clauses: [{ property: 'tokens', operator: 'gt', value: 2 ** 31 }],
          },
        },
        ['body', 'filter', 'clauses', 0, 'value'],
      ],
      [
        'empty property',
        {
          ...valid,
          filter: { conjunction: 'and', clauses: [{ property: '', operator: 'eq', value: 1 }] },
        },
        ['body', 'filter', 'clauses', 0, 'property'],
      ],
      [
        'count with a property',
        { ...valid, aggregation: { func: 'count', property: 'tokens' } },
        ['body', 'aggregation', 'property'],
      ],
      [
        'sum without a property',
        { ...valid, aggregation: { func: 'sum' } },
        ['body', 'aggregation', 'property'],
      ],
      [
        'unknown aggregation function',
        { ...valid, aggregation: { func: 'median', property: 'tokens' } },
        ['body', 'aggregation', 'func'],
      ],
      ['name shorter than 3 characters', { ...valid, name: 'ab' }, ['body', 'name']],
      [
        'organization_id with an organization token',
        { ...valid, organization_id: seller.organizationId },
        ['body', 'organization_id'],
      ],
    ];
    const before = await meterCount(seller.organizationId);
    for (const [label, body, loc] of cases) {
      const refused = await callV1(api, seller.token, 'POST', '/v1/meters/', body);
      assert.equal(refused.status, 422, label);
      assert.deepEqual(refused.body.detail[0].loc, loc, label);
    }
    assert.equal(await meterCount(seller.organizationId), before);

    const meter = await seller.polar.meters.create(valid as never);
    const refusedUpdate = await callV1(api, seller.token, 'PATCH', `/v1/meters/${meter.id}`, {
      name: 'Renamed',
      aggregation: { func: 'avg' },
    });
    assert.equal(refusedUpdate.status, 422);
    assert.deepEqual(refusedUpdate.body.detail[0].loc, ['body', 'aggregation', 'property']);
    assert.equal((await seller.polar.meters.get({ id: meter.id })).name, 'Refused meter');
  });

  it("never reads or changes another organization's meter", async () => {
    const theirs = await other.polar.meters.create({
      name: 'Private meter',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    await assert.rejects(seller.polar.meters.get({ id: theirs.id }), ResourceNotFound);
    await assert.rejects(
      seller.polar.meters.update({ id: theirs.id, meterUpdate: { name: 'Taken over' } }),
      ResourceNotFound,
    );
    const listed = await seller.polar.meters.list({ query: 'Private meter' });
    assert.equal(listed.result.items.length, 0);
    assert.equal((await other.polar.meters.get({ id: theirs.id })).name, 'Private meter');
  });
});
