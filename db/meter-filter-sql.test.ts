/**
 * The SQL form of meter filters and aggregations agrees with the pure evaluator: random filters
 * over random events, run against real PostgreSQL, select the same events and aggregate to the
 * same decimal strings. A failure prints the seed that reproduces it (`METER_SQL_SEED=<seed>`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadRuntimeConfig } from '../config/env.ts';
import {
  aggregate,
  aggregationFunctions,
  filterOperators,
  type MeterAggregation,
  type MeterEvent,
  type MeterFilter,
  type MeterFilterClause,
  matchesFilter,
} from '../domain/meter-filter.ts';
import { meterAggregationToSql, meterFilterToSql } from './meter-filter-sql.ts';
import { type Orm, openOrm } from './orm.ts';

/** mulberry32: a small seeded generator, so that a failing case can be replayed. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const integer = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[integer(items.length)] as T;
  return { next, integer, pick, chance: (probability: number) => next() < probability };
}
type Random = ReturnType<typeof randomSource>;

// Few distinct keys and values, so that clauses often hit, tie and miss. Strings carry LIKE
// metacharacters, case, non-ASCII and astral code points (ordered by code point, as "C" does).
const keys = ['model', 'tokens', 'ratio', 'flag', 'name', 'note'];
const stringPool = [
  'a',
  'ab',
  'abc',
  'B',
  'b%',
  '%',
  '_',
  'a_c',
  'x\\y',
  'é',
  'z😀',
  'Zz',
  '',
  "o'k",
];
const numberPool = [0, 1, -1, 2, 3, 10, 120, 0.1, 0.2, 0.5, -2.25, 1e-7, 1e21, 2147483647, 3.3];
const names = ['api_call', 'api_call_v2', 'upload', 'API_CALL', 'a%b'];

function randomValue(random: Random): string | number | boolean {
  const kind = random.integer(3);
  if (kind === 0) return random.pick(stringPool);
  if (kind === 1) return random.pick(numberPool);
  return random.chance(0.5);
}

function randomEvent(random: Random): MeterEvent {
  const metadata: MeterEvent['metadata'] = {};
  for (const key of keys) if (random.chance(0.7)) metadata[key] = randomValue(random);
  return {
    name: random.pick(names),
    source: random.pick(['user', 'system']),
    // Millisecond times around a few whole seconds, so `timestamp` clauses tie after flooring.
    timestamp: new Date(1_700_000_000_000 + random.integer(4) * 1000 + random.integer(1000)),
    metadata,
  };
}

function randomProperty(random: Random): string {
  const roll = random.integer(10);
  if (roll === 0) return 'name';
  if (roll === 1) return 'source';
  if (roll === 2) return 'timestamp';
  if (roll === 3) return 'absent';
  const key = random.pick(keys);
  return random.chance(0.3) ? `metadata.${key}` : key;
}

function randomClause(random: Random): MeterFilterClause {
  const property = randomProperty(random);
  let value = randomValue(random);
  if (property === 'name' && random.chance(0.5)) value = random.pick(names);
  if (property === 'timestamp' && random.chance(0.7)) value = 1_700_000_000 + random.integer(4);
  return { property, operator: random.pick(filterOperators), value };
}

function randomFilter(random: Random, depth = 0): MeterFilter {
  const clauses = Array.from({ length: random.integer(4) }, () =>
    depth < 2 && random.chance(0.25) ? randomFilter(random, depth + 1) : randomClause(random),
  );
  return { conjunction: random.pick(['and', 'or'] as const), clauses };
}

function randomAggregation(random: Random): MeterAggregation {
  const func = random.pick(aggregationFunctions);
  return func === 'count' ? { func } : { func, property: randomProperty(random) };
}

describe('meter filters and aggregations in SQL agree with the pure evaluator', () => {
  const seed = Number(process.env.METER_SQL_SEED ?? Date.now() % 1_000_000);
  const random = randomSource(seed);
  const events = Array.from({ length: 300 }, () => randomEvent(random));
  let orm: Orm;

  /**
   * Runs `work` with the events in a temporary table `meter_events` (the columns meters read,
   * typed as in `events`), inside a transaction that drops it.
   */
  const withEvents = <T>(work: (tx: EntityManager) => Promise<T>) =>
    orm.em.fork().transactional(async (tx) => {
      await tx.execute(
        `create temporary table meter_events (position int, name varchar(255), source text,
           "timestamp" timestamptz, metadata jsonb) on commit drop`,
      );
      await tx.execute(
        `insert into meter_events
         select position, name, source, "timestamp", metadata
           from jsonb_to_recordset(?::jsonb) as t(position int, name text, source text,
             "timestamp" timestamptz, metadata jsonb)`,
        [JSON.stringify(events.map((event, position) => ({ ...event, position })))],
      );
      return work(tx);
    });

  before(async () => {
    orm = await openOrm(loadRuntimeConfig().database.url as string);
  });
  after(() => orm.close());

  it(`selects the same events for 400 random filters (seed ${seed})`, async () => {
    await withEvents(async (tx) => {
      for (let round = 0; round < 400; round++) {
        const filter = randomFilter(random);
        const { sql, params } = meterFilterToSql(filter, 'e');
        const rows = await tx.execute<{ position: number }[]>(
          `select position from meter_events e where ${sql} order by position`,
          params,
        );
        const expected = events.flatMap((event, position) =>
          matchesFilter(filter, event) ? [position] : [],
        );
        assert.deepEqual(
          rows.map((row) => row.position),
          expected,
          `seed ${seed}, filter ${JSON.stringify(filter)}`,
        );
      }
    });
  });

  it(`aggregates to the same decimals for 400 random meters (seed ${seed})`, async () => {
    await withEvents(async (tx) => {
      for (let round = 0; round < 400; round++) {
        const filter = randomFilter(random);
        const aggregation = randomAggregation(random);
        const condition = meterFilterToSql(filter, 'e');
        const aggregate$ = meterAggregationToSql(aggregation, 'e');
        const [row] = await tx.execute<{ quantity: string }[]>(
          `select trim_scale(${aggregate$.sql})::text as quantity
             from meter_events e where ${condition.sql}`,
          [...aggregate$.params, ...condition.params],
        );
        const matching = events.filter((event) => matchesFilter(filter, event));
        assert.equal(
          row?.quantity,
          aggregate(aggregation, matching),
          `seed ${seed}, aggregation ${JSON.stringify(aggregation)}, filter ${JSON.stringify(filter)}`,
        );
      }
    });
  });

  it('covers every operator and aggregation function against every value type', async () => {
    await withEvents(async (tx) => {
      for (const operator of filterOperators) {
        for (const property of [...keys, 'name', 'source', 'timestamp', 'absent']) {
          for (const value of [...stringPool, ...numberPool, true, false, 1_700_000_001]) {
            const filter: MeterFilter = {
              conjunction: 'and',
              clauses: [{ property, operator, value }],
            };
            const { sql, params } = meterFilterToSql(filter, 'e');
            const [row] = await tx.execute<{ positions: number[] | null }[]>(
              `select array_agg(position order by position) as positions
                 from meter_events e where ${sql}`,
              params,
            );
            const expected = events.flatMap((event, position) =>
              matchesFilter(filter, event) ? [position] : [],
            );
            assert.deepEqual(row?.positions ?? [], expected, JSON.stringify(filter));
          }
        }
      }
      for (const func of aggregationFunctions) {
        for (const property of [...keys, 'name', 'timestamp', 'absent']) {
          const aggregation = (
            func === 'count' ? { func } : { func, property }
          ) as MeterAggregation;
          const { sql, params } = meterAggregationToSql(aggregation, 'e');
          const [row] = await tx.execute<{ quantity: string }[]>(
            `select trim_scale(${sql})::text as quantity from meter_events e`,
            params,
          );
          assert.equal(row?.quantity, aggregate(aggregation, events), JSON.stringify(aggregation));
        }
      }
    });
  });
});
