import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/postgresql';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  CustomerMeter,
  Meter,
  MeterBilledPeriod,
  MeterUsageHour,
  OutboxEvent,
  UsageEvent,
} from '../../db/entities/index.ts';
import type { MeterAggregation, MeterFilter } from '../../domain/meter-filter.ts';
import { creditCustomerMeter, rebuildCustomerMeters } from '../customer-meters/service.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('usage events (/v1/events) and customer meters (/v1/customer-meters)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  const em = () => api.orm.em.fork() as EntityManager;
  const ingestRaw = (body: unknown, token = seller.token) =>
    callV1(api, token, 'POST', '/v1/events/ingest', body);
  const storedEvents = (organizationId: string, name: string) =>
    em().count(UsageEvent, { organization: organizationId, name });

  /** A meter counting (or aggregating) the events named `name`. */
  const meterOf = (
    name: string,
    aggregation: MeterAggregation = { func: 'count' },
    owner: Seller = seller,
  ) => {
    const filter: MeterFilter = {
      conjunction: 'and',
      clauses: [{ property: 'name', operator: 'eq', value: name }],
    };
    return owner.polar.meters.create({ name: `Meter of ${name}`, filter, aggregation });
  };
  const newCustomer = (externalId?: string, owner: Seller = seller) =>
    owner.polar.customers.create({
      email: `buyer-${randomUUID()}@example.com`,
      ...(externalId && { externalId }),
    });
  const customerMeter = async (customerId: string, meterId: string) => {
    const page = await seller.polar.customerMeters.list({ customerId, meterId });
    return page.result.items[0];
  };

  it('ingests events through the SDK and reads them back', async () => {
    const meter = await meterOf('sdk_call');
    const customer = await newCustomer(`ext-${randomUUID()}`);
    const timestamp = new Date(Date.now() - 60_000);
    const { inserted } = await seller.polar.events.ingest({
      events: [
        { name: 'sdk_call', customerId: customer.id, timestamp, metadata: { model: 'gpt-4o' } },
        { name: 'sdk_call', externalCustomerId: customer.externalId as string },
      ],
    });
    assert.equal(inserted, 2);

    const page = await seller.polar.events.list({ customerId: customer.id, name: 'sdk_call' });
    assert.equal(page.result.pagination.totalCount, 2);
    const [newest, oldest] = page.result.items;
    assert.ok(newest && oldest && newest.timestamp > oldest.timestamp);
    assert.equal(oldest.source, 'user');
    assert.deepEqual(oldest.metadata, { model: 'gpt-4o' });
    assert.equal(oldest.customer?.id, customer.id);
    assert.equal(oldest.externalCustomerId, customer.externalId);

    const fetched = await seller.polar.events.get({ id: oldest.id });
    assert.equal(fetched.timestamp.getTime(), timestamp.getTime());

    const standing = await customerMeter(customer.id, meter.id);
    assert.ok(standing);
    assert.equal(standing.consumedUnits, 2);
    assert.equal(standing.creditedUnits, 0);
    assert.equal(standing.balance, -2);
    assert.equal(standing.meter.id, meter.id);
    assert.equal(standing.customer.id, customer.id);
    const byId = await seller.polar.customerMeters.get({ id: standing.id });
    assert.equal(byId.consumedUnits, 2);

    const hours = await em().find(MeterUsageHour, { meter: meter.id, customer: customer.id });
    assert.equal(
      hours.reduce((total, hour) => total + hour.eventCount, 0),
      2,
    );
  });

  it('counts a retried batch once: events with an external_id are stored once', async () => {
    const meter = await meterOf('retried_call');
    const customer = await newCustomer();
    const batch = {
      events: Array.from({ length: 50 }, (_, index) => ({
        name: 'retried_call',
        customer_id: customer.id,
        external_id: `retry-${customer.id}-${index}`,
      })),
    };
    const first = await ingestRaw(batch);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { inserted: 50, duplicates: 0 });
    const again = await ingestRaw(batch);
    assert.deepEqual(again.body, { inserted: 0, duplicates: 50 });
    assert.equal(await storedEvents(seller.organizationId, 'retried_call'), 50);
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 50);
  });

  it('keeps events of an unknown external customer and attaches them when it appears', async () => {
    const meter = await meterOf('early_call');
    const externalId = `early-${randomUUID()}`;
    const laterExternalId = `later-${randomUUID()}`;
    const { inserted } = await seller.polar.events.ingest({
      events: [
        { name: 'early_call', externalCustomerId: externalId },
        { name: 'early_call', externalCustomerId: externalId },
        { name: 'early_call', externalCustomerId: laterExternalId },
      ],
    });
    assert.equal(inserted, 3);
    const pending = await seller.polar.events.list({ externalCustomerId: externalId });
    assert.equal(pending.result.items[0]?.customerId, null);

    // Created with the external id: its events become its own and count.
    const created = await newCustomer(externalId);
    const attached = await seller.polar.events.list({ customerId: created.id });
    assert.equal(attached.result.pagination.totalCount, 2);
    assert.equal((await customerMeter(created.id, meter.id))?.consumedUnits, 2);

    // Given the external id by an update: the same.
    const updated = await newCustomer();
    await seller.polar.customers.update({
      id: updated.id,
      customerUpdate: { externalId: laterExternalId },
    });
    assert.equal((await customerMeter(updated.id, meter.id))?.consumedUnits, 1);
  });

  it('refuses a batch with a bad event whole, reporting each bad one by index', async () => {
    const customer = await newCustomer();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const { status, body } = await ingestRaw({
      events: [
        { name: 'mixed_call', customer_id: customer.id },
        { customer_id: customer.id },
        { name: 'mixed_call', customer_id: customer.id, timestamp: future },
        { name: 'mixed_call' },
        { name: 'mixed_call', customer_id: customer.id, metadata: { nested: { no: 1 } } },
        { name: 'mixed_call', customer_id: customer.id, organization_id: seller.organizationId },
        { name: 'mixed_call', customer_id: customer.id, metadata: { text: 'nul\u0000' } },
        { name: 'mixed_call', external_customer_id: 'someone-new' },
      ],
    });
    assert.equal(status, 422);
    assert.equal(body.error, 'RequestValidationError');
    assert.deepEqual(
      body.detail.map((error: { loc: unknown[] }) => error.loc),
      [['body', 'events', 6, 'metadata', 'text']],
    );
    const withoutNul = await ingestRaw({
      events: [
        { name: 'mixed_call', customer_id: customer.id },
        { customer_id: customer.id },
        { name: 'mixed_call', customer_id: customer.id, timestamp: future },
        { name: 'mixed_call' },
        { name: 'mixed_call', customer_id: customer.id, metadata: { nested: { no: 1 } } },
        { name: 'mixed_call', customer_id: customer.id, organization_id: seller.organizationId },
        { name: 'mixed_call', external_customer_id: 'someone-new' },
      ],
    });
    assert.equal(withoutNul.status, 422);
    assert.deepEqual(
      withoutNul.body.detail.map((error: { loc: unknown[] }) => error.loc),
      [
        ['body', 'events', 1, 'name'],
        ['body', 'events', 2, 'timestamp'],
        ['body', 'events', 3, 'customer_id'],
        ['body', 'events', 4, 'metadata', 'nested'],
        ['body', 'events', 5, 'organization_id'],
      ],
    );
    assert.match(withoutNul.body.detail[1].msg, /past/);
    // A customer of no one's (or another organization's) refuses the batch too.
    const stranger = await ingestRaw({
      events: [
        { name: 'mixed_call', customer_id: customer.id },
        { name: 'mixed_call', customer_id: randomUUID() },
      ],
    });
    assert.equal(stranger.status, 422);
    assert.deepEqual(stranger.body.detail[0].loc, ['body', 'events', 1, 'customer_id']);
    assert.match(stranger.body.detail[0].msg, /Customer not found/);
    assert.equal(await storedEvents(seller.organizationId, 'mixed_call'), 0);
  });

  it('refuses a malformed batch whole, storing nothing', async () => {
    const customer = await newCustomer();
    for (const body of [{}, { events: 'mixed' }, [{ name: 'x', customer_id: customer.id }]]) {
      const answer = await ingestRaw(body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.error, 'RequestValidationError');
    }
    const notEvents = await ingestRaw({ events: [1, 2] });
    assert.equal(notEvents.status, 422);
    assert.deepEqual(
      notEvents.body.detail.map((error: { loc: unknown[] }) => error.loc),
      [
        ['body', 'events', 0],
        ['body', 'events', 1],
      ],
    );
  });

  it('takes 10,000 events in one call, once, and refuses 10,001 or a bad one at 9,000 whole', async () => {
    const meter = await meterOf('bulk_call');
    const customer = await newCustomer(`bulk-${randomUUID()}`);
    const batch = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        name: 'bulk_call',
        externalCustomerId: customer.externalId as string,
        externalId: `bulk-${customer.id}-${index}`,
        metadata: { index },
      }));
    assert.deepEqual(await seller.polar.events.ingest({ events: batch(10_000) }), {
      inserted: 10_000,
    });
    assert.equal(await storedEvents(seller.organizationId, 'bulk_call'), 10_000);
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 10_000);
    // The SDK 0.35.4 sends no external_id: a retry that must count once goes raw.
    const keyed = {
      events: batch(10_000).map((event) => ({
        name: 'bulk_keyed',
        external_customer_id: event.externalCustomerId,
        external_id: event.externalId,
      })),
    };
    assert.deepEqual((await ingestRaw(keyed)).body, { inserted: 10_000, duplicates: 0 });
    assert.deepEqual((await ingestRaw(keyed)).body, { inserted: 0, duplicates: 10_000 });
    assert.equal(await storedEvents(seller.organizationId, 'bulk_keyed'), 10_000);

    const refusedNames = ['bulk_over', 'bulk_bad'];
    const over = batch(10_001).map((event) => ({ ...event, name: 'bulk_over' }));
    await assert.rejects(seller.polar.events.ingest({ events: over }), (error) => {
      assert.ok(error instanceof HTTPValidationError);
      assert.match(JSON.stringify(error.detail), /at most 10000 events/);
      return true;
    });
    const bad = batch(10_000).map((event) => ({ ...event, name: 'bulk_bad' }));
    const wire = bad.map((event) => ({
      name: event.name,
      external_customer_id: event.externalCustomerId,
      external_id: `${event.externalId}-bad`,
      metadata: event.metadata,
    }));
    const invalid = await ingestRaw({
      events: wire.map((event, index) =>
        index === 9_000 ? { ...event, timestamp: 'yesterday' } : event,
      ),
    });
    assert.equal(invalid.status, 422);
    assert.deepEqual(
      invalid.body.detail.map((error: { loc: unknown[] }) => error.loc),
      [['body', 'events', 9_000, 'timestamp']],
    );
    // Not even JSON at 9,000: refused as the body parser refuses, after 9,000 good events.
    const text = JSON.stringify({ events: wire });
    const broken = text.replace(`"${wire[9_000]?.external_id}"`, `"${wire[9_000]?.external_id}",,`);
    assert.notEqual(broken, text);
    const response = await fetch(`${api.url}/v1/events/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
      body: broken,
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, 'INVALID_REQUEST_BODY');
    for (const name of refusedNames) {
      assert.equal(await storedEvents(seller.organizationId, name), 0, name);
    }
    assert.equal(
      await em().count(UsageEvent, {
        organization: seller.organizationId,
        externalId: { $like: `bulk-${customer.id}-%-bad` },
      }),
      0,
    );
  });

  it('sums fractional values exactly: 0.1 a thousand times is 100', async () => {
    const meter = await meterOf('fraction_call', { func: 'sum', property: 'amount' });
    const customer = await newCustomer();
    for (let batch = 0; batch < 2; batch++) {
      await seller.polar.events.ingest({
        events: Array.from({ length: 500 }, () => ({
          name: 'fraction_call',
          customerId: customer.id,
          metadata: { amount: 0.1 },
        })),
      });
    }
    const row = await em().findOneOrFail(CustomerMeter, { customer: customer.id, meter: meter.id });
    assert.equal(row.consumedUnits, '100.000000000000');
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 100);
    const [hourSum] = await em().execute<{ total: string }[]>(
      'select sum(sum_value)::text as total from meter_usage_hours where meter_id = ?',
      [meter.id],
    );
    assert.equal(hourSum?.total, '100.000000000000');
  });

  it('recomputes max, min, avg and unique meters from the events', async () => {
    const customer = await newCustomer();
    const meters = await Promise.all(
      (['max', 'min', 'avg', 'unique'] as const).map((func) =>
        meterOf('spread_call', { func, property: 'amount' }),
      ),
    );
    for (const amounts of [
      [3, 1.5],
      [7, 3],
    ]) {
      await seller.polar.events.ingest({
        events: amounts.map((amount) => ({
          name: 'spread_call',
          customerId: customer.id,
          metadata: { amount },
        })),
      });
    }
    const consumed = await Promise.all(
      meters.map(async (meter) => (await customerMeter(customer.id, meter.id))?.consumedUnits),
    );
    assert.deepEqual(consumed, [7, 1.5, 3.625, 3]);
  });

  it('credits units: balance is credited minus consumed, and a cycle resets with rollover', async () => {
    const meter = await meterOf('credited_call');
    const customer = await newCustomer();
    const grantId = randomUUID();
    const credit = { organizationId: seller.organizationId, customerId: customer.id };
    const first = await em().transactional((tx) =>
      creditCustomerMeter(tx, { ...credit, meterId: meter.id, units: 10, rollover: true, grantId }),
    );
    assert.deepEqual(first, {
      applied: true,
      consumedUnits: '0.000000000000',
      creditedUnits: 10,
      balance: '10.000000000000',
    });
    // The same grant credited again (a retried activity) changes nothing.
    const retried = await em().transactional((tx) =>
      creditCustomerMeter(tx, { ...credit, meterId: meter.id, units: 10, rollover: true, grantId }),
    );
    assert.equal(retried.applied, false);

    await seller.polar.events.ingest({
      events: Array.from({ length: 4 }, () => ({ name: 'credited_call', customerId: customer.id })),
    });
    const standing = await customerMeter(customer.id, meter.id);
    assert.deepEqual(
      [standing?.consumedUnits, standing?.creditedUnits, standing?.balance],
      [4, 10, 6],
    );
    const credited = await seller.polar.events.list({ customerId: customer.id, source: 'system' });
    const creditEvent = credited.result.items[0];
    assert.ok(creditEvent && creditEvent.name === 'meter.credited');
    assert.deepEqual(creditEvent.metadata, { meterId: meter.id, units: 10, rollover: true });

    // A new period: 10 units again plus the 6 unused, consumption from zero.
    const cycled = await em().transactional((tx) =>
      creditCustomerMeter(tx, {
        ...credit,
        meterId: meter.id,
        units: 10,
        rollover: true,
        grantId,
        cycle: { periodStart: new Date() },
      }),
    );
    assert.deepEqual(
      [cycled.consumedUnits, cycled.creditedUnits, cycled.balance],
      ['0.000000000000', 16, '16.000000000000'],
    );

    // Usage timestamped before the reset belongs to the previous period, not to this one.
    await seller.polar.events.ingest({
      events: [
        {
          name: 'credited_call',
          customerId: customer.id,
          timestamp: new Date(Date.now() - 60_000),
        },
        { name: 'credited_call', customerId: customer.id },
      ],
    });
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 1);
  });

  it('rebuilds the customer meters of a meter created after its events', async () => {
    const customer = await newCustomer();
    await seller.polar.events.ingest({
      events: [2.5, 4].map((amount) => ({
        name: 'predating_call',
        customerId: customer.id,
        metadata: { amount },
      })),
    });
    const meter = await meterOf('predating_call', { func: 'sum', property: 'amount' });
    await em().transactional(async (tx) => {
      const row = await tx.findOneOrFail(Meter, meter.id);
      await rebuildCustomerMeters(tx, seller.organizationId, row);
    });
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 6.5);
  });

  it('records customer.state_changed when a balance crosses zero', async () => {
    const meter = await meterOf('crossing_call');
    const customer = await newCustomer();
    const stateChanges = () =>
      em().count(OutboxEvent, {
        organization: seller.organizationId,
        type: 'customer.state_changed',
        data: { id: customer.id },
      });
    await em().transactional((tx) =>
      creditCustomerMeter(tx, {
        organizationId: seller.organizationId,
        customerId: customer.id,
        meterId: meter.id,
        units: 3,
        rollover: false,
        grantId: randomUUID(),
      }),
    );
    assert.equal(await stateChanges(), 1);
    await seller.polar.events.ingest({
      events: [1, 2].map(() => ({ name: 'crossing_call', customerId: customer.id })),
    });
    assert.equal(await stateChanges(), 1, 'still positive: no change of state');
    await seller.polar.events.ingest({
      events: [{ name: 'crossing_call', customerId: customer.id }],
    });
    assert.equal(await stateChanges(), 2);
    const [last] = await em().find(
      OutboxEvent,
      { organization: seller.organizationId, type: 'customer.state_changed' },
      { orderBy: { createdAt: 'desc' }, limit: 1 },
    );
    assert.ok(last);
    const meters = (last.data as { active_meters: { meter_id: string; balance: number }[] })
      .active_meters;
    assert.deepEqual(
      meters.map((row) => [row.meter_id, row.balance]),
      [[meter.id, 0]],
    );
  });

  it('sums concurrent batches of the same customer exactly', async () => {
    const meter = await meterOf('concurrent_call', { func: 'sum', property: 'units' });
    const customer = await newCustomer();
    await Promise.all(
      Array.from({ length: 8 }, () =>
        seller.polar.events.ingest({
          events: Array.from({ length: 100 }, () => ({
            name: 'concurrent_call',
            customerId: customer.id,
            metadata: { units: 0.25 },
          })),
        }),
      ),
    );
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 200);
  });

  it('reports events of a billed period as late usage instead of counting them', async () => {
    const meter = await meterOf('late_call', { func: 'sum', property: 'units' });
    const customer = await newCustomer();
    const periodStart = new Date('2026-01-01T00:00:00Z');
    const periodEnd = new Date('2026-02-01T00:00:00Z');
    // Billed with 5 units; then an event of 2 units for the period arrives, and one for now.
    const inPeriod = new Date('2026-01-15T00:00:00Z');
    await seller.polar.events.ingest({
      events: [
        { name: 'late_call', customerId: customer.id, timestamp: inPeriod, metadata: { units: 5 } },
      ],
    });
    const setup = em();
    setup.create(MeterBilledPeriod, {
      meter: meter.id,
      customer: customer.id,
      periodStart,
      periodEnd,
      units: '5',
    });
    await setup.flush();
    await seller.polar.events.ingest({
      events: [
        { name: 'late_call', customerId: customer.id, timestamp: inPeriod, metadata: { units: 2 } },
        { name: 'late_call', customerId: customer.id, metadata: { units: 1 } },
      ],
    });
    const period = await em().findOneOrFail(MeterBilledPeriod, { meter: meter.id });
    assert.equal(period.lateEventCount, 1);
    assert.equal(period.lateUnits, '2.000000000000');
    // The customer meter counted the usage before billing, then only the current event.
    assert.equal((await customerMeter(customer.id, meter.id))?.consumedUnits, 6);
  });

  it('lists events with a meter filter, names and metadata', async () => {
    const customer = await newCustomer();
    const event = (
      name: string,
      minutesAgo: number,
      metadata: Record<string, string | number>,
    ) => ({
      name,
      customerId: customer.id,
      timestamp: new Date(Date.now() - minutesAgo * 60_000),
      metadata,
    });
    await seller.polar.events.ingest({
      events: [
        event('filter_call', 3, { tier: 'gold', tokens: 5 }),
        event('filter_call', 2, { tier: 'silver', tokens: 50 }),
        event('filter_other', 1, { tier: 'gold' }),
      ],
    });
    const filter = JSON.stringify({
      conjunction: 'and',
      clauses: [
        { property: 'name', operator: 'eq', value: 'filter_call' },
        { property: 'tokens', operator: 'gt', value: 10 },
      ],
    });
    const filtered = await seller.polar.events.list({ customerId: customer.id, filter });
    assert.deepEqual(
      filtered.result.items.map((event) => event.metadata),
      [{ tier: 'silver', tokens: 50 }],
    );
    const gold = await seller.polar.events.list({
      customerId: customer.id,
      metadata: { tier: 'gold' },
      sorting: ['timestamp'],
    });
    assert.deepEqual(
      gold.result.items.map((event) => event.name),
      ['filter_call', 'filter_other'],
    );
    const tokensMeter = await seller.polar.meters.create({
      name: 'Tokens of filter calls',
      filter: JSON.parse(filter),
      aggregation: { func: 'sum', property: 'tokens' },
    });
    const byMeter = await seller.polar.events.list({ meterId: tokensMeter.id });
    assert.equal(byMeter.result.pagination.totalCount, 1);

    const names = await seller.polar.events.listNames({
      customerId: customer.id,
      sorting: ['name'],
    });
    assert.deepEqual(
      names.result.items.map((row) => [row.name, row.source, row.occurrences]),
      [
        ['filter_call', 'user', 2],
        ['filter_other', 'user', 1],
      ],
    );

    const badFilter = await callV1(api, seller.token, 'GET', '/v1/events/?filter=nope');
    assert.equal(badFilter.status, 422);
    assert.deepEqual(badFilter.body.detail[0].loc, ['query', 'filter']);
  });

  it('keeps organizations apart', async () => {
    const meter = await meterOf('private_call');
    const customer = await newCustomer();
    await seller.polar.events.ingest({
      events: [{ name: 'private_call', customerId: customer.id }],
    });
    const [event] = (await seller.polar.events.list({ customerId: customer.id })).result.items;
    assert.ok(event);
    await assert.rejects(other.polar.events.get({ id: event.id }), ResourceNotFound);
    const theirList = await other.polar.events.list({ customerId: customer.id });
    assert.equal(theirList.result.pagination.totalCount, 0);
    const standing = await customerMeter(customer.id, meter.id);
    assert.ok(standing);
    await assert.rejects(other.polar.customerMeters.get({ id: standing.id }), ResourceNotFound);
    assert.equal(
      (await other.polar.customerMeters.list({ customerId: customer.id })).result.items.length,
      0,
    );
    // Naming another organization's customer is an unknown customer.
    const { status, body } = await ingestRaw(
      { events: [{ name: 'private_call', customer_id: customer.id }] },
      other.token,
    );
    assert.equal(status, 422);
    assert.match(body.detail[0].msg, /Customer not found/);
    assert.equal(await storedEvents(other.organizationId, 'private_call'), 0);
  });
});
