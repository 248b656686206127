/**
 * The SQL pieces meter usage is read with, shared by quantities, billing and the rollup rebuild.
 *
 * A meter counts the organization's user events (`source = 'user'`; system events such as
 * `meter.credited` are bookkeeping) that its filter matches, as ingestion accounts them.
 *
 * Usage comes as partial rows `(window_start, customer, n, s, lo, hi)`: `n` values (events, for
 * `count`), their sum `s`, least `lo` and greatest `hi`, summed from rollup hours
 * (`meter_usage_hours`, maintained at ingestion for events with a customer) or from raw events.
 * Combining partials gives every aggregation but `unique`, which needs the values themselves and
 * is always read from the events.
 */
import type { Meter } from '../../db/entities/index.ts';
import {
  averageOfSql,
  meterFilterToSql,
  meterOperandToSql,
  meterValueToSql,
} from '../../db/meter-filter-sql.ts';
import { joinSql, type SqlFragment, sql, sqlText } from '../../db/sql.ts';
import type { MeterAggregation } from '../../domain/meter-filter.ts';

/**
 * An SQL expression of the window a timestamptz expression falls in, as a UTC timestamp without
 * time zone (cheaper to compute per row than `date_trunc`'s time zone argument), or none.
 */
export type WindowOf = (timestamp: string) => SqlFragment;

/** The UTC start of the `unit` holding a timestamptz expression. */
export const truncatedTo =
  (unit: 'year' | 'month' | 'week' | 'day' | 'hour'): WindowOf =>
  (timestamp) =>
    sqlText(`date_trunc('${unit}', ${timestamp} at time zone 'UTC')`);

export const noWindow: WindowOf = () => sqlText('null::timestamp');

/** The customer an event counts for: its customer, or its external id until that one appears. */
export const eventCustomer = sqlText('coalesce(e.customer_id::text, e.external_customer_id)');

/**
 * The events (`e`) the meter counts in `[since, until)` under further `conditions`: the
 * organization's user events its filter matches.
 */
export function meterEventConditions(
  meter: Meter,
  since: SqlFragment,
  until: SqlFragment,
  conditions: SqlFragment[],
): SqlFragment {
  return joinSql(
    [
      sql`e.organization_id = ${meter.organization.id}`,
      sqlText(`e.source = 'user'`),
      sql`e."timestamp" >= ${since}`,
      sql`e."timestamp" < ${until}`,
      meterFilterToSql(meter.filter, 'e'),
      ...conditions,
    ],
    ' and ',
  );
}

/**
 * Whether an event (`e`) contributes to the aggregation's rollup: every event for `count`, the
 * ones carrying the property for `unique`, the ones where it is a number otherwise (as
 * ingestion's rollups count them).
 */
export function contributesToSql(aggregation: MeterAggregation): SqlFragment {
  if (aggregation.func === 'count') return sqlText('true');
  const operand =
    aggregation.func === 'unique'
      ? meterOperandToSql(aggregation.property, 'e')
      : meterValueToSql(aggregation.property, 'e');
  return sql`${operand} is not null`;
}

/** The numeric value an event (`e`) contributes (NULL for `count` and `unique`). */
export const contributedValueSql = (aggregation: MeterAggregation) =>
  aggregation.func === 'count' || aggregation.func === 'unique'
    ? sqlText('null::numeric')
    : meterValueToSql(aggregation.property, 'e');

/**
 * Partial rows of the meter's events in `[since, until)` under `conditions` (on `e`), one per
 * window (and customer, `byCustomer`).
 */
export function rawPartials(
  meter: Meter,
  windowOf: WindowOf,
  byCustomer: boolean,
  since: SqlFragment,
  until: SqlFragment,
  conditions: SqlFragment[],
): SqlFragment {
  const { aggregation } = meter;
  const count = aggregation.func === 'count' ? sqlText('count(*)') : sqlText('count(x.v)');
  return sql`select ${windowOf('e."timestamp"')} as window_start,
      ${byCustomer ? eventCustomer : sqlText('null::text')} as customer,
      ${count} as n, sum(x.v) as s, min(x.v) as lo, max(x.v) as hi
    from events e cross join lateral (select ${contributedValueSql(aggregation)} as v) x
    where ${meterEventConditions(meter, since, until, conditions)}
    group by 1, 2`;
}

/**
 * Partial rows of the meter's rollup hours in `[since, until)` under `conditions` (on `r`), one
 * per window (and customer, `byCustomer`): summed where they are read, so that a large range
 * is reduced by parallel workers rather than shipped row by row.
 */
export function rollupPartials(
  meter: Meter,
  windowOf: WindowOf,
  byCustomer: boolean,
  since: SqlFragment,
  until: SqlFragment,
  conditions: SqlFragment[],
): SqlFragment {
  return sql`select ${windowOf('r.hour')} as window_start,
      ${sqlText(byCustomer ? 'r.customer_id::text' : 'null::text')} as customer,
      sum(r.event_count) as n, sum(r.sum_value) as s, min(r.min_value) as lo, max(r.max_value) as hi
    from meter_usage_hours r
    where ${joinSql(
      [
        sql`r.meter_id = ${meter.id}`,
        sql`r.hour >= ${since}`,
        sql`r.hour < ${until}`,
        ...conditions,
      ],
      ' and ',
    )}
    group by 1, 2`;
}

/** The aggregate over partial rows `p` that yields the meter's aggregation (not `unique`). */
export function combinePartialsSql(aggregation: MeterAggregation): SqlFragment {
  switch (aggregation.func) {
    case 'count':
      return sqlText('coalesce(sum(p.n), 0)::numeric');
    case 'sum':
      return sqlText('coalesce(sum(p.s), 0)');
    case 'max':
      return sqlText('coalesce(max(p.hi), 0)');
    case 'min':
      return sqlText('coalesce(min(p.lo), 0)');
    case 'avg':
      return averageOfSql(sqlText('sum(p.s)'), sqlText('sum(p.n)'));
    case 'unique':
      throw new Error('unique counts distinct values: partial rows cannot hold them');
  }
}
