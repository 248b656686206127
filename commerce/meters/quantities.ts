/**
 * Meter quantities: a meter's usage over a period as a time series, computed in PostgreSQL.
 *
 * Buckets follow Polar: one per `interval` step from `start` to `end` (both included), each
 * labelled with its step and holding the events of the interval it falls in (`date_trunc`, UTC;
 * the bounds are computed here so that the planner sees the range it scans).
 * `total` is what a single bucket spanning all of them would hold (for `count` and `sum` the sum
 * of the buckets, for `max` their maximum, for `avg` and `unique` the figure over every event).
 *
 * Two ways to the same figures:
 * - from the hourly rollups (`meter_usage_hours`, per meter × customer × hour, maintained at
 *   ingestion) plus the raw events the rollups cannot hold (events without a customer yet): for
 *   `count`, `sum`, `max`, `min` and `avg` without metadata filters;
 * - from the raw events otherwise (`unique` needs the values, metadata filters the events).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Meter } from '../../db/entities/index.ts';
import { meterAggregationToSql, numericAggregateSql } from '../../db/meter-filter-sql.ts';
import { type SqlFragment, sql, sqlText } from '../../db/sql.ts';
import type { AggregationFunction } from '../../domain/meter-filter.ts';
import {
  combinePartialsSql,
  eventCustomer,
  meterEventConditions,
  rawPartials,
  rollupPartials,
  truncatedTo,
} from './usage-sql.ts';

export const timeIntervals = ['year', 'month', 'week', 'day', 'hour'] as const;
export type TimeInterval = (typeof timeIntervals)[number];

/** Which events of the meter count, and over which stretch of time. */
export interface UsageScope {
  /** Events whose customer is one of these (by id). */
  customerIds?: string[];
  /** Events whose customer is one of these (by external id). */
  externalCustomerIds?: string[];
  /** `?metadata[key]=value`: the event's metadata value under each key, as text, is one of these. */
  metadata?: Record<string, string[]>;
}

export interface QuantitiesQuery extends UsageScope {
  start: Date;
  end: Date;
  interval: TimeInterval;
  /** Aggregate per customer first, then these per-customer figures with this function. */
  customerAggregation?: AggregationFunction | null;
}

export interface MeterQuantities {
  /** Ascending; quantities are exact decimal strings (`0` for an empty bucket). */
  quantities: { timestamp: Date; quantity: string }[];
  total: string;
}

/** The longest period each interval may span, in days (Polar's limits). */
export const maxPeriodDays: Record<TimeInterval, number> = {
  hour: 7,
  day: 366,
  week: 7 * 53,
  month: 365 * 4,
  year: 365 * 10,
};

/** Whether the period is ordered and short enough for its interval (UTC calendar days). */
export function periodFitsInterval(start: Date, end: Date, interval: TimeInterval): boolean {
  if (start > end) return false;
  const day = (date: Date) => Math.floor(date.getTime() / 86_400_000);
  return day(end) - day(start) <= maxPeriodDays[interval];
}

/** Whether the hourly rollups can answer for this meter and scope. */
const rollupsServe = (meter: Meter, scope: UsageScope) =>
  meter.aggregation.func !== 'unique' && Object.keys(scope.metadata ?? {}).length === 0;

/** Conditions on the event row `e` for the scope's customers and metadata. */
function eventScopeConditions(organizationId: string, scope: UsageScope): SqlFragment[] {
  const conditions: SqlFragment[] = [];
  if (scope.customerIds?.length) {
    // Events of an external id are attached to its customer when it appears; until then they
    // are the customer's through that external id.
    conditions.push(sql`(e.customer_id in (${scope.customerIds}) or (e.customer_id is null
      and e.external_customer_id in (select c.external_id from customers c
        where c.organization_id = ${organizationId} and c.id in (${scope.customerIds}))))`);
  }
  if (scope.externalCustomerIds?.length) {
    conditions.push(sql`(e.external_customer_id in (${scope.externalCustomerIds})
      or e.customer_id in (select c.id from customers c
        where c.organization_id = ${organizationId} and c.external_id in (${scope.externalCustomerIds})))`);
  }
  for (const [key, values] of Object.entries(scope.metadata ?? {})) {
    if (values.length) conditions.push(sql`(e.metadata ->> ${key}::text) in (${values})`);
  }
  return conditions;
}

/** Conditions on the rollup row `r` for the scope's customers (rollups hold attached events only). */
function rollupScopeConditions(organizationId: string, scope: UsageScope): SqlFragment[] {
  const conditions: SqlFragment[] = [];
  if (scope.customerIds?.length) conditions.push(sql`r.customer_id in (${scope.customerIds})`);
  if (scope.externalCustomerIds?.length) {
    conditions.push(sql`r.customer_id in (select c.id from customers c
      where c.organization_id = ${organizationId} and c.external_id in (${scope.externalCustomerIds}))`);
  }
  return conditions;
}

/**
 * `(window_start, customer, quantity)` per window (and customer, `perCustomer`), plus over the
 * whole range (`window_start` null), for the meter's events in `[since, until)`.
 */
function groupedQuantities(
  meter: Meter,
  query: QuantitiesQuery,
  since: SqlFragment,
  until: SqlFragment,
  perCustomer: boolean,
): SqlFragment {
  const organizationId = meter.organization.id;
  const windowOf = truncatedTo(query.interval);
  const groupingSets = sqlText(
    perCustomer
      ? 'grouping sets ((window_start, customer), (customer))'
      : 'grouping sets ((window_start), ())',
  );
  const customerColumn = sqlText(perCustomer ? 'customer' : 'null::text');
  const scope = eventScopeConditions(organizationId, query);
  if (!rollupsServe(meter, query)) {
    return sql`select window_start, ${customerColumn} as customer,
        ${meterAggregationToSql(meter.aggregation, 'e')} as quantity
      from (select e.*, ${windowOf('e."timestamp"')} as window_start, ${eventCustomer} as customer
        from events e where ${meterEventConditions(meter, since, until, scope)}) e
      group by ${groupingSets}`;
  }
  // Rollups hold the events attached to a customer; the others are read from the events.
  const rollups = rollupPartials(
    meter,
    windowOf,
    perCustomer,
    since,
    until,
    rollupScopeConditions(organizationId, query),
  );
  const unattached = rawPartials(meter, windowOf, perCustomer, since, until, [
    sqlText('e.customer_id is null'),
    ...scope,
  ]);
  return sql`select window_start, ${customerColumn} as customer,
      ${combinePartialsSql(meter.aggregation)} as quantity
    from (${rollups} union all ${unattached}) p
    group by ${groupingSets}`;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** `date` plus whole months, the day clamped to the month's length (PostgreSQL's `+ '1 month'`). */
function addMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(date);
  result.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return result;
}

/** `date` plus one interval, as PostgreSQL adds `'1 <interval>'` to a UTC timestamp. */
function addInterval(date: Date, interval: TimeInterval): Date {
  if (interval === 'month') return addMonths(date, 1);
  if (interval === 'year') return addMonths(date, 12);
  const length = { hour: hourMs, day: dayMs, week: 7 * dayMs }[interval];
  return new Date(date.getTime() + length);
}

/** The UTC start of the interval holding `date` (`date_trunc`: weeks start on Monday). */
export function truncateUtc(date: Date, interval: TimeInterval): Date {
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
  switch (interval) {
    case 'hour':
      return new Date(Math.floor(date.getTime() / hourMs) * hourMs);
    case 'day':
      return new Date(Date.UTC(year, month, day));
    case 'week':
      return new Date(Date.UTC(year, month, day - ((date.getUTCDay() + 6) % 7)));
    case 'month':
      return new Date(Date.UTC(year, month, 1));
    case 'year':
      return new Date(Date.UTC(year, 0, 1));
  }
}

/** The bucket labels: `start`, then one interval after the other while not after `end`. */
export function bucketLabels(start: Date, end: Date, interval: TimeInterval): Date[] {
  const labels: Date[] = [];
  for (let label = start; label <= end; label = addInterval(label, interval)) labels.push(label);
  return labels;
}

/** The meter's quantities over the query's period, by interval, with their total. */
export async function meterQuantities(
  em: EntityManager,
  meter: Meter,
  query: QuantitiesQuery,
): Promise<MeterQuantities> {
  const labels = bucketLabels(query.start, query.end, query.interval);
  const windows = labels.map((label) => truncateUtc(label, query.interval));
  const since = windows[0] ?? truncateUtc(query.start, query.interval);
  const until = addInterval(windows.at(-1) ?? since, query.interval);
  const grouped = groupedQuantities(
    meter,
    query,
    sql`${since.toISOString()}::timestamptz`,
    sql`${until.toISOString()}::timestamptz`,
    Boolean(query.customerAggregation),
  );
  const statement = query.customerAggregation
    ? sql`select extract(epoch from window_start) * 1000 as window_ms,
          trim_scale(${numericAggregateSql(query.customerAggregation, sqlText('quantity'))})::text as quantity
        from (${grouped}) g group by window_start`
    : sql`select extract(epoch from window_start) * 1000 as window_ms,
          trim_scale(quantity)::text as quantity
        from (${grouped}) g`;
  const rows = await em.execute<{ window_ms: string | null; quantity: string }[]>(
    statement.sql,
    statement.params,
  );
  const byWindow = new Map(
    rows.map((row) => [row.window_ms && Number(row.window_ms), row.quantity]),
  );
  return {
    quantities: labels.map((label, index) => ({
      timestamp: label,
      quantity: byWindow.get((windows[index] as Date).getTime()) ?? '0',
    })),
    total: byWindow.get(null) ?? '0',
  };
}
