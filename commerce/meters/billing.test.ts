import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MeterBilledPeriod } from '../../db/entities/index.ts';
import {
  aggregate,
  type MeterAggregation,
  type MeterEvent,
  type MeterFilter,
  matchesFilter,
} from '../../domain/meter-filter.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { billMeterUsage } from './billing.ts';

const at = (iso: string) => new Date(iso);

describe('billing a meter period (billMeterUsage)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let customerId: string;
  const events: MeterEvent[] = [];

  const apiCalls: MeterFilter = {
    conjunction: 'and',
    clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }],
  };

  async function ingest(timestamps: [iso: string, tokens: number][], name = 'api_call') {
    const sent = timestamps.map(([iso, tokens], index) => ({
      name,
      source: 'user',
      timestamp: at(iso),
      metadata: { tokens, user: `u${index % 3}` },
    }));
    const result = await seller.polar.events.ingest({
      events: sent.map((event) => ({ ...event, customerId })),
    });
    assert.equal(result.inserted, sent.length);
    events.push(...sent);
  }

  /** What the period's usage is by the pure evaluator, over every event sent so far. */
  const expectedUnits = (aggregation: MeterAggregation, start: Date, end: Date) =>
    aggregate(
      aggregation,
      events.filter(
        (event) =>
          event.timestamp >= start && event.timestamp < end && matchesFilter(apiCalls, event),
      ),
    );

  const createMeter = (aggregation: MeterAggregation) =>
    seller.polar.meters.create({
      name: `Billed ${aggregation.func}`,
      filter: apiCalls,
      aggregation,
    });

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    customerId = (await seller.polar.customers.create({ email: 'billed@example.com' })).id;
    // Around a period [10:20, 13:30): events on both sides of each boundary, and whole hours.
    await ingest([
      ['2025-05-01T09:59:59.999Z', 1000],
      ['2025-05-01T10:19:59.999Z', 500],
      ['2025-05-01T10:20:00.000Z', 0.1],
      ['2025-05-01T10:45:00.000Z', 0.2],
      ['2025-05-01T11:00:00.000Z', 1.25],
      ['2025-05-01T11:30:00.000Z', 2],
      ['2025-05-01T12:59:59.999Z', 0.000001],
      ['2025-05-01T13:00:00.000Z', 3],
      ['2025-05-01T13:29:59.999Z', 0.3],
      ['2025-05-01T13:30:00.000Z', 700],
      ['2025-05-01T13:45:00.000Z', 900],
    ]);
    await ingest([['2025-05-01T11:10:00.000Z', 10_000]], 'upload');
  });
  after(() => api.close());

  const period = { periodStart: at('2025-05-01T10:20:00Z'), periodEnd: at('2025-05-01T13:30:00Z') };

  it('bills exactly the events in [start, end), partial hours included', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    const subscriptionId = '00000000-0000-4000-8000-0000000000aa';
    const units = await billMeterUsage(api.orm.em.fork(), {
      meterId: meter.id,
      customerId,
      ...period,
      subscriptionId,
    });
    assert.equal(units, '6.850001');
    const record = await api.orm.em.fork().findOneOrFail(MeterBilledPeriod, { meter: meter.id });
    assert.equal(record.units, '6.850001000000');
    assert.equal(record.periodEnd.toISOString(), '2025-05-01T13:30:00.000Z');
    assert.equal(record.subscriptionId, subscriptionId);
  });

  it('bills every aggregation as the pure evaluator computes it', async () => {
    const aggregations: MeterAggregation[] = [
      { func: 'count' },
      { func: 'max', property: 'tokens' },
      { func: 'min', property: 'tokens' },
      { func: 'avg', property: 'tokens' },
      { func: 'unique', property: 'user' },
    ];
    const periods = [
      period,
      // Within one hour: raw events only.
      { periodStart: at('2025-05-01T10:30:00Z'), periodEnd: at('2025-05-01T10:50:00Z') },
      // Whole hours: rollups only.
      { periodStart: at('2025-05-01T11:00:00Z'), periodEnd: at('2025-05-01T13:00:00Z') },
    ];
    for (const aggregation of aggregations) {
      const meter = await createMeter(aggregation);
      for (const { periodStart, periodEnd } of periods) {
        const units = await billMeterUsage(api.orm.em.fork(), {
          meterId: meter.id,
          customerId,
          periodStart,
          periodEnd,
        });
        assert.equal(
          units,
          expectedUnits(aggregation, periodStart, periodEnd),
          `${aggregation.func} over ${periodStart.toISOString()}`,
        );
      }
    }
  });

  it('bills a period once: billing it again answers the recorded units, late events are reported', async () => {
    const meter = await createMeter({ func: 'sum', property: 'tokens' });
    const input = { meterId: meter.id, customerId, ...period };
    const first = await billMeterUsage(api.orm.em.fork(), input);
    await ingest([['2025-05-01T12:00:00.000Z', 40]]);
    const again = await billMeterUsage(api.orm.em.fork(), input);
    assert.equal(first, '6.850001');
    assert.equal(again, first);
    const records = await api.orm.em.fork().find(MeterBilledPeriod, { meter: meter.id });
    assert.equal(records.length, 1);
    assert.equal(records[0]?.lateEventCount, 1);
    assert.equal(Number(records[0]?.lateUnits), 40);
  });

  it('bills concurrent calls for the same period once', async () => {
    const meter = await createMeter({ func: 'count' });
    const input = { meterId: meter.id, customerId, ...period };
    const results = await Promise.all(
      [1, 2, 3].map(() => billMeterUsage(api.orm.em.fork(), input)),
    );
    const units = expectedUnits({ func: 'count' }, period.periodStart, period.periodEnd);
    assert.deepEqual(results, [units, units, units]);
    assert.equal(await api.orm.em.fork().count(MeterBilledPeriod, { meter: meter.id }), 1);
  });

  it("refuses another organization's customer, an unknown meter and an empty period", async () => {
    const meter = await createMeter({ func: 'count' });
    const stranger = await other.polar.customers.create({ email: 'stranger@example.com' });
    await assert.rejects(
      billMeterUsage(api.orm.em.fork(), { meterId: meter.id, customerId: stranger.id, ...period }),
      /Customer not found/,
    );
    await assert.rejects(
      billMeterUsage(api.orm.em.fork(), {
        meterId: '00000000-0000-4000-8000-000000000000',
        customerId,
        ...period,
      }),
      /Meter not found/,
    );
    await assert.rejects(
      billMeterUsage(api.orm.em.fork(), {
        meterId: meter.id,
        customerId,
        periodStart: period.periodEnd,
        periodEnd: period.periodEnd,
      }),
      RangeError,
    );
    assert.equal(await api.orm.em.fork().count(MeterBilledPeriod, { meter: meter.id }), 0);
  });
});
