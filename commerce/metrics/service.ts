import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../core/errors.ts';
import { cancellationReasons } from '../../db/entities/subscription.ts';
import { placeholders } from '../../db/sql.ts';
import { isoDateTime } from '../wire.ts';
import {
  intervalMaxDays,
  type MetricsQuery,
  type MetricsWire,
  type MetricValues,
  metricDefinitions,
  metricDescriptors,
  metricsMinDate,
} from './schemas.ts';

/**
 * What the metrics count. Money is integer cents, tax excluded (Polar's definitions):
 * - revenue: the net amount (after discount, before tax) of paid orders (refunded ones included);
 *   net_revenue: the same minus what was refunded of it (there are no platform fees here).
 * - cumulative revenues: everything since the organization's first order up to the period's end.
 * - averages: per order of the period, rounded to the cent; over the range, total / orders.
 * - one_time_products: `purchase` orders; new_subscriptions_revenue: `subscription_create`
 *   orders; renewed_subscriptions(_revenue): `subscription_cycle` orders (subscriptions counted
 *   once per period). `subscription_update` orders count only in orders and revenue.
 * - new_subscriptions: subscriptions started in the period; active_subscriptions: started before
 *   the period's end and not ended (nor set to end) by then; MRR: their amounts per month (a year
 *   / 12, a week × 4, a day × 30, summed exactly and rounded once); committed MRR: the same
 *   without those whose cancellation was asked for by then.
 * - canceled_subscriptions: cancellations asked for in the period, by the customer's reason (none
 *   given counts as `other`).
 * - checkouts: created in the period; succeeded_checkouts: those of them that succeeded;
 *   conversion: their ratio (0 without checkouts).
 * Periods are whole interval steps in the requested time zone, from the one holding start_date
 * to the one holding end_date, each labelled by its first instant.
 */

export interface MetricsFilter {
  /** The organizations whose data count: the caller's, or none when the filter named others. */
  organizationIds: string[];
  productIds: string[];
  customerIds: string[];
  /** Products billed once (`one_time`) or every interval (`recurring`); empty: both. */
  billingTypes: ('one_time' | 'recurring')[];
}

/** Refuses a range metrics cannot answer: reversed, too early, or too long for its interval. */
export function checkMetricsRange({ start_date, end_date, interval }: MetricsQuery): void {
  if (start_date < metricsMinDate) {
    throw invalidField(
      ['query', 'start_date'],
      `Start date must be on or after ${metricsMinDate}.`,
    );
  }
  if (end_date < start_date) {
    throw invalidField(['query', 'end_date'], 'End date must be on or after the start date.');
  }
  const days = (Date.parse(end_date) - Date.parse(start_date)) / 86_400_000;
  if (days > intervalMaxDays[interval]) {
    throw invalidField(
      ['query', 'end_date'],
      'The interval is too big. Try to change the interval or reduce the date range.',
    );
  }
}

interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The CTEs every query starts with: `params` (unit, time zone, step), `periods` (each step's
 * local start and its instant) and `bounds` (the instants the periods cover, and the first local
 * start). Rows are bucketed by `bucket(column)`, comparable with `periods.local_start`.
 */
function periodsCtes({ start_date, end_date, interval, timezone }: MetricsQuery): Statement {
  return {
    sql: `params as (
        select ?::text as unit, ?::text as tz, ('1 ' || ?)::interval as step
      ),
      periods as (
        select series.local_start, series.local_start at time zone params.tz as starts_at
        from params, generate_series(
          date_trunc(params.unit, ?::date::timestamp),
          date_trunc(params.unit, (?::date + 1)::timestamp - interval '1 microsecond'),
          params.step
        ) as series(local_start)
      ),
      bounds as (
        select min(periods.local_start) as first_local_start,
               min(periods.starts_at) as starts_at,
               (max(periods.local_start) + params.step) at time zone params.tz as ends_at
        from periods, params
        group by params.step, params.tz
      )`,
    params: [interval, timezone, interval, start_date, end_date],
  };
}

const bucket = (column: string) => `date_trunc(params.unit, ${column} at time zone params.tz)`;

/**
 * `and …` conditions on a table with organization, product and customer columns; `allRecurring`:
 * its rows are all of recurring products (subscriptions).
 */
function filterConditions(alias: string, filter: MetricsFilter, allRecurring = false): Statement {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const inList = (column: string, ids: string[]) => {
    conditions.push(ids.length ? `${alias}.${column} in (${placeholders(ids.length)})` : 'false');
    params.push(...ids);
  };
  inList('organization_id', filter.organizationIds);
  if (filter.productIds.length) inList('product_id', filter.productIds);
  if (filter.customerIds.length) inList('customer_id', filter.customerIds);
  const billingTypes = new Set(filter.billingTypes);
  if (billingTypes.size === 1) {
    const recurring = billingTypes.has('recurring');
    if (allRecurring) {
      if (!recurring) conditions.push('false');
    } else {
      conditions.push(
        `${alias}.product_id in (select id from products where recurring_interval is ${
          recurring ? 'not null' : 'null'
        })`,
      );
    }
  }
  return { sql: conditions.map((condition) => `and ${condition}`).join(' '), params };
}

/** `expression as slug` lines of a bucket query, and `coalesce(b.slug, 0) as slug` ones of its answer. */
function bucketColumns(columns: Record<string, string>) {
  return {
    aggregates: Object.entries(columns)
      .map(([slug, expression]) => `${expression} as ${slug}`)
      .join(',\n'),
    values: Object.keys(columns)
      .map((slug) => `coalesce(b.${slug}, 0) as ${slug}`)
      .join(',\n'),
  };
}

const ordersByReason = (reason: string) => ({
  count: `count(*) filter (where billing_reason = '${reason}')`,
  revenue: `sum(revenue) filter (where billing_reason = '${reason}')`,
  netRevenue: `sum(net_revenue) filter (where billing_reason = '${reason}')`,
});
const purchases = ordersByReason('purchase');
const creations = ordersByReason('subscription_create');
const cycles = ordersByReason('subscription_cycle');

const orderColumns = bucketColumns({
  orders: 'count(*)',
  revenue: 'sum(revenue)',
  net_revenue: 'sum(net_revenue)',
  average_order_value: 'round(avg(revenue))',
  net_average_order_value: 'round(avg(net_revenue))',
  one_time_products: purchases.count,
  one_time_products_revenue: purchases.revenue,
  one_time_products_net_revenue: purchases.netRevenue,
  new_subscriptions_revenue: creations.revenue,
  new_subscriptions_net_revenue: creations.netRevenue,
  renewed_subscriptions: `count(distinct subscription_id) filter (where billing_reason = 'subscription_cycle')`,
  renewed_subscriptions_revenue: cycles.revenue,
  renewed_subscriptions_net_revenue: cycles.netRevenue,
});

/** Order metrics per period: paid orders bucketed by creation, running totals since the first. */
function ordersStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('o', filter);
  return {
    sql: `with ${periods.sql},
      scoped as (
        select ${bucket('o.created_at')} as local_start, o.billing_reason, o.subscription_id,
               o.net_amount as revenue, o.net_amount - o.refunded_amount as net_revenue
        from params, bounds, orders o
        where o.created_at >= bounds.starts_at and o.created_at < bounds.ends_at
          and o.status <> 'pending' ${conditions.sql}
      ),
      earlier as (
        select coalesce(sum(o.net_amount), 0) as revenue,
               coalesce(sum(o.net_amount - o.refunded_amount), 0) as net_revenue
        from bounds, orders o
        where o.created_at < bounds.starts_at and o.status <> 'pending' ${conditions.sql}
      ),
      buckets as (
        select local_start, ${orderColumns.aggregates} from scoped group by local_start
      )
      select periods.starts_at as timestamp, ${orderColumns.values},
        earlier.revenue + sum(coalesce(b.revenue, 0)) over running as cumulative_revenue,
        earlier.net_revenue + sum(coalesce(b.net_revenue, 0)) over running as net_cumulative_revenue
      from periods cross join earlier left join buckets b on b.local_start = periods.local_start
      window running as (order by periods.local_start)
      order by periods.local_start`,
    params: [...periods.params, ...conditions.params, ...conditions.params],
  };
}

const canceledColumns = bucketColumns({
  canceled_subscriptions: 'count(*)',
  ...Object.fromEntries(
    cancellationReasons.map((reason) => [
      `canceled_subscriptions_${reason}`,
      reason === 'other'
        ? `count(*) filter (where reason = 'other' or reason is null)`
        : `count(*) filter (where reason = '${reason}')`,
    ]),
  ),
});

/**
 * Subscription metrics per period. Active ones and MRR are stocks: each subscription adds itself
 * in the period it starts and removes itself in the one it ends (or, for committed MRR, the one
 * its cancellation was asked in), so a running sum over periods counts them, with what happened
 * before the range as its start. MRR is kept × 12 (exact in integers) until the final rounding.
 */
function subscriptionsStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('s', filter, true);
  return {
    sql: `with ${periods.sql},
      scoped as (
        select s.started_at, s.canceled_at, s.customer_cancellation_reason as reason,
               coalesce(s.ended_at, s.ends_at) as ends,
               least(s.canceled_at, s.ended_at, s.ends_at) as uncommitted,
               s.amount::bigint * case s.recurring_interval
                 when 'year' then 1 when 'month' then 12 when 'week' then 48 when 'day' then 360
               end as mrr12
        from bounds, subscriptions s
        where s.started_at < bounds.ends_at ${conditions.sql}
      ),
      changes as (
        select ${bucket('started_at')} as local_start, 1 as active, mrr12, mrr12 as committed12
        from params, scoped
        union all
        select ${bucket('ends')}, -1, -mrr12, 0 from params, scoped where ends is not null
        union all
        select ${bucket('uncommitted')}, 0, 0, -mrr12
        from params, scoped where uncommitted is not null
      ),
      earlier as (
        select coalesce(sum(active), 0) as active, coalesce(sum(mrr12), 0) as mrr12,
               coalesce(sum(committed12), 0) as committed12
        from changes, bounds where changes.local_start < bounds.first_local_start
      ),
      stock as (
        select changes.local_start, sum(active) as active, sum(mrr12) as mrr12,
               sum(committed12) as committed12
        from changes, bounds where changes.local_start >= bounds.first_local_start
        group by changes.local_start
      ),
      started as (
        select ${bucket('started_at')} as local_start, count(*) as new_subscriptions
        from params, bounds, scoped where started_at >= bounds.starts_at
        group by 1
      ),
      canceled as (
        select ${bucket('canceled_at')} as local_start, ${canceledColumns.aggregates}
        from params, bounds, scoped
        where canceled_at >= bounds.starts_at and canceled_at < bounds.ends_at
        group by 1
      )
      select coalesce(started.new_subscriptions, 0) as new_subscriptions,
        earlier.active + sum(coalesce(stock.active, 0)) over running as active_subscriptions,
        round((earlier.mrr12 + sum(coalesce(stock.mrr12, 0)) over running) / 12.0)
          as monthly_recurring_revenue,
        round((earlier.committed12 + sum(coalesce(stock.committed12, 0)) over running) / 12.0)
          as committed_monthly_recurring_revenue,
        ${canceledColumns.values}
      from periods cross join earlier
        left join stock on stock.local_start = periods.local_start
        left join started on started.local_start = periods.local_start
        left join canceled b on b.local_start = periods.local_start
      window running as (order by periods.local_start)
      order by periods.local_start`,
    params: [...periods.params, ...conditions.params],
  };
}

/** Checkouts per period of creation, and how many of them succeeded. */
function checkoutsStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('c', filter);
  return {
    sql: `with ${periods.sql},
      buckets as (
        select ${bucket('c.created_at')} as local_start, count(*) as checkouts,
               count(*) filter (where c.status = 'succeeded') as succeeded_checkouts
        from params, bounds, checkouts c
        where c.created_at >= bounds.starts_at and c.created_at < bounds.ends_at ${conditions.sql}
        group by 1
      )
      select coalesce(b.checkouts, 0) as checkouts,
             coalesce(b.succeeded_checkouts, 0) as succeeded_checkouts
      from periods left join buckets b on b.local_start = periods.local_start
      order by periods.local_start`,
    params: [...periods.params, ...conditions.params],
  };
}

type Row = Record<string, unknown>;

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** The range's totals: flows add up, stocks are the last period's, ratios are remade. */
function totalsOf(periods: MetricValues[]): MetricValues {
  const sum = (slug: string) => periods.reduce((total, period) => total + (period[slug] ?? 0), 0);
  const last = (slug: string) => periods.at(-1)?.[slug] ?? 0;
  const totals: MetricValues = {};
  for (const { slug, total } of metricDefinitions) {
    if (total === 'sum') totals[slug] = sum(slug);
    else if (total === 'last') totals[slug] = last(slug);
  }
  totals.average_order_value = Math.round(ratio(sum('revenue'), sum('orders')));
  totals.net_average_order_value = Math.round(ratio(sum('net_revenue'), sum('orders')));
  totals.checkouts_conversion = ratio(sum('succeeded_checkouts'), sum('checkouts'));
  return totals;
}

/**
 * The organization's metrics over the query's range, one period per interval step: one query
 * per source table (orders, subscriptions, checkouts), run side by side.
 */
export async function readMetrics(
  em: EntityManager,
  query: MetricsQuery,
  filter: MetricsFilter,
): Promise<MetricsWire> {
  const run = ({ sql, params }: Statement) => em.execute<Row[]>(sql, params);
  const [orders, subscriptions, checkouts] = await Promise.all([
    run(ordersStatement(query, filter)),
    run(subscriptionsStatement(query, filter)),
    run(checkoutsStatement(query, filter)),
  ]);
  const values = orders.map((orderRow, index) => {
    const row: Row = { ...orderRow, ...subscriptions[index], ...checkouts[index] };
    const period: MetricValues = {};
    for (const { slug } of metricDefinitions) period[slug] = Number(row[slug] ?? 0);
    period.checkouts_conversion = ratio(period.succeeded_checkouts ?? 0, period.checkouts ?? 0);
    return period;
  });
  return {
    periods: values.map((period, index) => ({
      timestamp: isoDateTime(new Date(orders[index]?.timestamp as string | Date)),
      ...period,
    })),
    totals: totalsOf(values),
    metrics: metricDescriptors,
  };
}
