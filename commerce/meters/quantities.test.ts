import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import type { TimeInterval } from '@polar-sh/sdk/models/components/timeinterval.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { MeterUsageHour } from '../../db/entities/index.ts';
import {
  type AggregationFunction,
  aggregate,
  type MeterAggregation,
  type MeterEvent,
  type MeterFilter,
  matchesFilter,
} from '../../domain/meter-filter.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { bucketLabels, truncateUtc } from './quantities.ts';

/** An event as the test sends it, with who it counts for (customer id, or external id). */
interface SentEvent extends MeterEvent {
  customer: string;
  customerId?: string;
  externalCustomerId?: string;
}

const at = (iso: string) => new Date(iso);

/** What the quantities must be, computed with the pure evaluator. */
function expectedQuantities(
  events: SentEvent[],
  meter: { filter: MeterFilter; aggregation: MeterAggregation },
  start: Date,
  end: Date,
  interval: TimeInterval,
  customerAggregation?: AggregationFunction,
) {
  const matching = events.filter((event) => matchesFilter(meter.filter, event));
  const quantityOf = (selected: SentEvent[]) => {
    if (!customerAggregation) return Number(aggregate(meter.aggregation, selected));
    const customers = [...new Set(selected.map((event) => event.customer))];
    const perCustomer = customers.map((customer) => ({
      name: 'q',
      source: 'user',
      timestamp: start,
      metadata: {
        q: Number(
          aggregate(
            meter.aggregation,
            selected.filter((event) => event.customer === customer),
          ),
        ),
      },
    }));
    const func = customerAggregation;
    return Number(aggregate(func === 'count' ? { func } : { func, property: 'q' }, perCustomer));
  };
  const buckets = bucketLabels(start, end, interval);
  const windows = new Set(buckets.map((label) => truncateUtc(label, interval).getTime()));
  return {
    quantities: buckets.map((label) => ({
      timestamp: label,
      quantity: quantityOf(
        matching.filter(
          (event) =>
            truncateUtc(event.timestamp, interval).getTime() ===
            truncateUtc(label, interval).getTime(),
        ),
      ),
    })),
    total: quantityOf(
      matching.filter((event) => windows.has(truncateUtc(event.timestamp, interval).getTime())),
    ),
  };
}

describe('meter quantities (GET /v1/meters/{id}/quantities)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let polar: Polar;
  const events: SentEvent[] = [];
  let alice: string;
  let bob: string;

  const apiCalls: MeterFilter = {
    conjunction: 'and',
    clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }],
  };

  async function ingest(sent: Omit<SentEvent, 'source' | 'customer'>[]) {
    const result = await polar.events.ingest({
      events: sent.map((event) => ({
        name: event.name,
        timestamp: event.timestamp,
        metadata: event.metadata,
        ...(event.customerId
          ? { customerId: event.customerId }
          : { externalCustomerId: event.externalCustomerId as string }),
      })),
    });
    assert.equal(result.inserted, sent.length);
    for (const event of sent) {
      events.push({
        ...event,
        source: 'user',
        customer: event.customerId ?? (event.externalCustomerId === 'bob-ext' ? bob : 'ghost'),
      });
    }
  }

  const createMeter = (aggregation: MeterAggregation, filter = apiCalls) =>
    polar.meters.create({ name: `Meter ${aggregation.func}`, filter, aggregation });

  const aggregations: MeterAggregation[] = [
    { func: 'count' },
    { func: 'sum', property: 'tokens' },
    { func: 'max', property: 'tokens' },
    { func: 'min', property: 'metadata.tokens' },
    { func: 'avg', property: 'tokens' },
    { func: 'unique', property: 'model' },
  ];
  let earlyMeters: Awaited<ReturnType<typeof createMeter>>[];

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    polar = seller.polar;
    alice = (await polar.customers.create({ email: 'alice@example.com' })).id;
    bob = (await polar.customers.create({ email: 'bob@example.com', externalId: 'bob-ext' })).id;
    earlyMeters = await Promise.all(aggregations.map((aggregation) => createMeter(aggregation)));
    const call = (
      iso: string,
      who: { customerId?: string; externalCustomerId?: string },
      metadata: MeterEvent['metadata'],
      name = 'api_call',
    ) => ({ name, timestamp: at(iso), metadata, ...who });
    const ofAlice = { customerId: alice };
    const ofBob = { externalCustomerId: 'bob-ext' };
    // Ghost has no customer: its events stay unattached, yet count in unfiltered quantities.
    const ofGhost = { externalCustomerId: 'ghost-ext' };
    await ingest([
      call('2025-02-28T23:00:00Z', ofAlice, { tokens: 7, model: 'a' }),
      call('2025-03-03T10:15:00Z', ofAlice, { tokens: 1.5, model: 'a' }),
      call('2025-03-03T10:45:00Z', ofAlice, { tokens: 2, model: 'b' }),
      call('2025-03-03T10:20:00Z', ofAlice, { tokens: 1000 }, 'upload'),
      call('2025-03-03T23:59:59.999Z', ofAlice, { tokens: 0.1, model: 'a' }),
      call('2025-03-05T00:00:00Z', ofAlice, { tokens: 0.2 }),
      call('2025-03-10T12:00:00Z', ofAlice, { tokens: 100, model: 'c' }),
      call('2025-03-03T11:00:00Z', ofBob, { tokens: 3, model: 'a' }),
      call('2025-03-04T09:30:00Z', ofBob, { tokens: 0.7, model: 1 }),
      call('2025-03-04T10:00:00Z', ofBob, { tokens: 'ten', model: 'b' }),
      call('2025-03-04T10:05:00Z', ofBob, {}),
      call('2025-03-17T08:00:00Z', ofBob, { tokens: 5, model: 'b' }),
      call('2025-03-03T12:00:00Z', ofGhost, { tokens: 4, model: 'z' }),
      call('2025-03-09T00:00:00Z', ofGhost, { tokens: 1 }),
      call('2025-04-02T00:00:00Z', ofAlice, { tokens: 9, model: 'a' }),
    ]);
  });
  after(() => api.close());

  const march = {
    startTimestamp: at('2025-03-01T00:00:00Z'),
    endTimestamp: at('2025-03-31T00:00:00Z'),
  };

  it('answers one bucket per day, ascending, empty days 0, with the total', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    const result = await polar.meters.quantities({ id: meter.id, ...march, interval: 'day' });
    assert.equal(result.quantities.length, 31);
    assert.deepEqual(result.quantities[0], { timestamp: at('2025-03-01T00:00:00Z'), quantity: 0 });
    // 3 March: alice 1.5 + 2 + 0.1, bob 3, ghost 4 (the upload is not an api_call).
    assert.deepEqual(result.quantities[2], {
      timestamp: at('2025-03-03T00:00:00Z'),
      quantity: 10.6,
    });
    assert.equal(result.quantities[3]?.quantity, 0.7);
    assert.equal(result.total, 117.5);
    assert.deepEqual(
      result,
      expectedQuantities(events, meter, march.startTimestamp, march.endTimestamp, 'day'),
    );
  });

  it('agrees with the pure evaluator for every aggregation and interval', async () => {
    const periods: [TimeInterval, string, string][] = [
      ['hour', '2025-03-03T09:30:00Z', '2025-03-04T12:00:00Z'],
      ['day', '2025-02-27T00:00:00Z', '2025-03-20T00:00:00Z'],
      ['week', '2025-02-26T00:00:00Z', '2025-03-31T00:00:00Z'],
      ['month', '2025-02-01T00:00:00Z', '2025-04-30T00:00:00Z'],
      ['year', '2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    ];
    // Meters created before the events (rollups kept by ingestion) and after (rollups rebuilt).
    const meters = [
      ...earlyMeters,
      ...(await Promise.all(aggregations.map((aggregation) => createMeter(aggregation)))),
    ];
    for (const meter of meters) {
      const { aggregation } = meter;
      for (const [interval, start, end] of periods) {
        const query = { startTimestamp: at(start), endTimestamp: at(end), interval };
        const result = await polar.meters.quantities({ id: meter.id, ...query });
        assert.deepEqual(
          result,
          expectedQuantities(events, meter, at(start), at(end), interval),
          `${aggregation.func} by ${interval}`,
        );
      }
    }
  });

  it('labels hourly buckets from an unaligned start, each holding its whole hour', async () => {
    const meter = await createMeter({ func: 'count' });
    const result = await polar.meters.quantities({
      id: meter.id,
      startTimestamp: at('2025-03-03T10:30:00Z'),
      endTimestamp: at('2025-03-03T12:30:00Z'),
      interval: 'hour',
    });
    assert.deepEqual(result.quantities, [
      { timestamp: at('2025-03-03T10:30:00Z'), quantity: 2 },
      { timestamp: at('2025-03-03T11:30:00Z'), quantity: 1 },
      { timestamp: at('2025-03-03T12:30:00Z'), quantity: 1 },
    ]);
    assert.equal(result.total, 4);
  });

  it('narrows to customers by id and by external id, attached or not', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    const only = (customers: string[]) =>
      expectedQuantities(
        events.filter((event) => customers.includes(event.customer)),
        meter,
        march.startTimestamp,
        march.endTimestamp,
        'week',
      );
    const query = { id: meter.id, ...march, interval: 'week' as const };
    assert.deepEqual(await polar.meters.quantities({ ...query, customerId: alice }), only([alice]));
    assert.deepEqual(
      await polar.meters.quantities({ ...query, customerId: [alice, bob] }),
      only([alice, bob]),
    );
    assert.deepEqual(
      await polar.meters.quantities({ ...query, externalCustomerId: 'bob-ext' }),
      only([bob]),
    );
    assert.deepEqual(
      await polar.meters.quantities({ ...query, externalCustomerId: ['ghost-ext', 'bob-ext'] }),
      only(['ghost', bob]),
    );
    assert.deepEqual(
      await polar.meters.quantities({ ...query, customerId: alice, externalCustomerId: 'bob-ext' }),
      only([]),
    );
    // Another organization's customer narrows to nothing.
    const stranger = await other.polar.customers.create({ email: 'stranger@example.com' });
    assert.equal((await polar.meters.quantities({ ...query, customerId: stranger.id })).total, 0);
  });

  it('aggregates per customer first with customer_aggregation_function', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    // A unique meter is read from the raw events: the same rules apply there.
    const models = await createMeter({ func: 'unique', property: 'model' });
    for (const counted of [meter, models]) {
      for (const func of ['count', 'sum', 'max', 'min', 'avg', 'unique'] as const) {
        const result = await polar.meters.quantities({
          id: counted.id,
          ...march,
          interval: 'week',
          customerAggregationFunction: func,
        });
        const { startTimestamp, endTimestamp } = march;
        assert.deepEqual(
          result,
          expectedQuantities(events, counted, startTimestamp, endTimestamp, 'week', func),
          `${counted.aggregation.func} per customer, then ${func}`,
        );
      }
    }
    const busiest = await polar.meters.quantities({
      id: meter.id,
      ...march,
      interval: 'month',
      customerAggregationFunction: 'max',
    });
    // alice used 103.8 in March, bob 8.7, ghost 5.
    assert.equal(busiest.total, 103.8);
  });

  it('filters events by metadata', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    const result = await polar.meters.quantities({
      id: meter.id,
      ...march,
      interval: 'month',
      metadata: { model: ['a', '1'] },
    });
    const models = new Set(['a', '1']);
    const wanted = events.filter((event) => models.has(String(event.metadata.model)));
    assert.deepEqual(
      result,
      expectedQuantities(wanted, meter, march.startTimestamp, march.endTimestamp, 'month'),
    );
    assert.equal(result.total, 5.3);
  });

  it('counts events ingested before the meter existed, and after it changed', async () => {
    const meter = await createMeter({ func: 'max', property: 'tokens' });
    const rollups = await api.orm.em.fork().count(MeterUsageHour, { meter: meter.id });
    assert.ok(rollups > 0, 'the new meter has rollups of the events already stored');
    const updated = await polar.meters.update({
      id: meter.id,
      meterUpdate: { aggregation: { func: 'min', property: 'tokens' } },
    });
    const result = await polar.meters.quantities({ id: meter.id, ...march, interval: 'month' });
    assert.deepEqual(
      result,
      expectedQuantities(events, updated, march.startTimestamp, march.endTimestamp, 'month'),
    );
    assert.equal(result.total, 0.1);
  });

  it('refuses missing or bad parameters with 422, and periods too long for the interval', async () => {
    const meter = await createMeter({ func: 'count' });
    const path = `/v1/meters/${meter.id}/quantities`;
    const get = (query: string) => callV1(api, seller.token, 'GET', `${path}?${query}`);
    const period = 'start_timestamp=2025-03-01T00:00:00Z&end_timestamp=2025-03-31T00:00:00Z';

    const missing = await get('interval=day');
    assert.equal(missing.status, 422);
    const locations = (missing.body as { detail: { loc: string[] }[] }).detail.map((issue) =>
      issue.loc.join('.'),
    );
    assert.deepEqual(locations.sort(), ['query.end_timestamp', 'query.start_timestamp']);
    assert.equal((await get(`${period}&interval=minute`)).status, 422);
    assert.equal((await get(`${period}&interval=day&customer_id=nope`)).status, 422);
    assert.equal(
      (await get(`${period}&interval=day&customer_aggregation_function=median`)).status,
      422,
    );
    const tooLong = await get(`${period}&interval=hour`);
    assert.equal(tooLong.status, 422);
    assert.deepEqual((tooLong.body as { detail: { loc: string[] }[] }).detail[0]?.loc, ['query']);
    const backwards = await get(
      'start_timestamp=2025-03-31T00:00:00Z&end_timestamp=2025-03-01T00:00:00Z&interval=day',
    );
    assert.equal(backwards.status, 422);
  });

  it("does not read another organization's meter", async () => {
    const meter = await createMeter({ func: 'count' });
    await assert.rejects(
      other.polar.meters.quantities({ id: meter.id, ...march, interval: 'day' }),
      ResourceNotFound,
    );
  });
});

describe('quantity buckets', () => {
  it('steps months as PostgreSQL adds them: the day clamped, then carried', () => {
    assert.deepEqual(
      bucketLabels(at('2025-01-31T06:00:00Z'), at('2025-04-30T00:00:00Z'), 'month'),
      [
        at('2025-01-31T06:00:00Z'),
        at('2025-02-28T06:00:00Z'),
        at('2025-03-28T06:00:00Z'),
        at('2025-04-28T06:00:00Z'),
      ],
    );
    assert.deepEqual(bucketLabels(at('2024-02-29T00:00:00Z'), at('2026-01-01T00:00:00Z'), 'year'), [
      at('2024-02-29T00:00:00Z'),
      at('2025-02-28T00:00:00Z'),
    ]);
  });

  it('holds each bucket in its UTC interval, weeks from Monday', () => {
    const sunday = at('2025-03-09T23:59:59Z');
    assert.deepEqual(truncateUtc(sunday, 'week'), at('2025-03-03T00:00:00Z'));
    assert.deepEqual(truncateUtc(at('2025-03-10T00:00:00Z'), 'week'), at('2025-03-10T00:00:00Z'));
    assert.deepEqual(truncateUtc(sunday, 'hour'), at('2025-03-09T23:00:00Z'));
    assert.deepEqual(truncateUtc(sunday, 'month'), at('2025-03-01T00:00:00Z'));
    assert.deepEqual(truncateUtc(sunday, 'year'), at('2025-01-01T00:00:00Z'));
  });
});
