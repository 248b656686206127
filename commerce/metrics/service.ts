import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../core/errors.ts';
import type { PriceAmountType, RecurringInterval } from '../../db/entities/product.ts';
import { cancellationReasons } from '../../db/entities/subscription.ts';
import { placeholders } from '../../db/sql.ts';
import { divideRoundingHalfAway } from '../../domain/discounts.ts';
import { type RecurringCharge, recurringRevenue } from '../../domain/recurring-revenue.ts';
import { type DiscountTerms, reductionOf, termOf } from '../subscriptions/renewal-bill.ts';
import { isoDateTime } from '../wire.ts';
import {
  type CurrencyMetricsWire,
  intervalMaxDays,
  type MetricsQuery,
  type MetricsWire,
  type MetricValues,
  metricDefinitions,
  metricDescriptors,
  metricsMinDate,
  moneyMetricSlugs,
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
 *   the period's end and not ended (nor set to end) by then; MRR: what they bill per month
 *   (domain/recurring-revenue.ts: the static price, seats included, less the discount while it
 *   applies, metered usage left out; a year / 12, a week × 4, a day × 30, summed exactly and
 *   rounded once); committed MRR: the same without those whose cancellation was asked for by then.
 * - canceled_subscriptions: cancellations asked for in the period, by the customer's reason (none
 *   given counts as `other`).
 * - checkouts: created in the period; succeeded_checkouts: those of them that succeeded;
 *   conversion: their ratio (0 without checkouts).
 * Periods are whole interval steps in the requested time zone, from the one holding start_date
 * to the one holding end_date, each labelled by its first instant.
 *
 * Money is never added across currencies: every money metric is reckoned per currency, Polar's
 * fields carry the requested one's (`currency`, usd by default) and `currencies` each one's.
 * Counts (orders, subscriptions, checkouts) count every currency.
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

/**
 * Order metrics per currency and period: paid orders bucketed by creation, running totals since
 * the first; every period of each currency the filter's orders were paid in, by currency.
 */
function ordersStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('o', filter);
  return {
    sql: `with ${periods.sql},
      scoped as (
        select ${bucket('o.created_at')} as local_start, o.currency, o.billing_reason,
               o.subscription_id, o.net_amount as revenue,
               o.net_amount - o.refunded_amount as net_revenue
        from params, bounds, orders o
        where o.created_at >= bounds.starts_at and o.created_at < bounds.ends_at
          and o.status <> 'pending' ${conditions.sql}
      ),
      earlier as (
        select o.currency, sum(o.net_amount) as revenue,
               sum(o.net_amount - o.refunded_amount) as net_revenue
        from bounds, orders o
        where o.created_at < bounds.starts_at and o.status <> 'pending' ${conditions.sql}
        group by o.currency
      ),
      buckets as (
        select currency, local_start, ${orderColumns.aggregates}
        from scoped group by currency, local_start
      ),
      currencies as (select currency from earlier union select currency from buckets)
      select currencies.currency, ${orderColumns.values},
        coalesce(earlier.revenue, 0) + sum(coalesce(b.revenue, 0)) over running
          as cumulative_revenue,
        coalesce(earlier.net_revenue, 0) + sum(coalesce(b.net_revenue, 0)) over running
          as net_cumulative_revenue
      from currencies cross join periods
        left join earlier on earlier.currency = currencies.currency
        left join buckets b
          on b.currency = currencies.currency and b.local_start = periods.local_start
      window running as (partition by currencies.currency order by periods.local_start)
      order by currencies.currency, periods.local_start`,
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

/** Subscriptions started, and cancellations asked for (by reason), per period. */
function subscriptionCountsStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('s', filter, true);
  return {
    sql: `with ${periods.sql},
      scoped as (
        select s.started_at, s.canceled_at, s.customer_cancellation_reason as reason
        from bounds, subscriptions s
        where s.started_at < bounds.ends_at ${conditions.sql}
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
      select coalesce(started.new_subscriptions, 0) as new_subscriptions, ${canceledColumns.values}
      from periods
        left join started on started.local_start = periods.local_start
        left join canceled b on b.local_start = periods.local_start
      order by periods.local_start`,
    params: [...periods.params, ...conditions.params],
  };
}

/** Each period's first instant, and the instant the last one ends. */
function periodBoundsStatement(query: MetricsQuery): Statement {
  const periods = periodsCtes(query);
  return {
    sql: `with ${periods.sql}
      select periods.starts_at, bounds.ends_at from periods, bounds
      order by periods.local_start`,
    params: periods.params,
  };
}

/**
 * What the MRR metrics read of each subscription live at some point of the range (those ended
 * before it add nothing): its static price (metered ones are left out), what the buyer chose
 * for it at checkout (a pay-what-you-want amount), its seats, and its discount's terms.
 */
function recurringChargesStatement(query: MetricsQuery, filter: MetricsFilter): Statement {
  const periods = periodsCtes(query);
  const conditions = filterConditions('s', filter, true);
  return {
    sql: `with ${periods.sql}
      select s.currency, s.recurring_interval, s.started_at,
             coalesce(s.ended_at, s.ends_at) as ends,
             least(s.canceled_at, s.ended_at, s.ends_at) as uncommitted,
             s.billing_anchor, coalesce(s.trial_end, s.started_at) as discount_applied_at,
             price.amount_type, price.price_amount, price.minimum_amount, price.maximum_amount,
             price.preset_amount, price.price_per_seat,
             c.amount as chosen_amount, s.seats as chosen_seats,
             d.type as discount_type, d.amount as discount_amount, d.basis_points,
             d.duration as discount_duration, d.duration_in_months
      from bounds, subscriptions s
        left join lateral (
          select pp.* from subscription_prices sp
            join product_prices pp on pp.id = sp.product_price_id
          where sp.subscription_id = s.id and pp.amount_type <> 'metered_unit'
          order by sp.id limit 1
        ) price on true
        left join checkouts c on c.id = s.checkout_id and c.product_price_id = price.id
        left join discounts d on d.id = s.discount_id
      where s.started_at < bounds.ends_at
        and (coalesce(s.ended_at, s.ends_at) is null
          or coalesce(s.ended_at, s.ends_at) >= bounds.starts_at)
        ${conditions.sql}`,
    params: [...periods.params, ...conditions.params],
  };
}

interface RecurringChargeRow {
  currency: string;
  recurring_interval: RecurringInterval;
  started_at: Date | string;
  ends: Date | string | null;
  uncommitted: Date | string | null;
  billing_anchor: Date | string;
  discount_applied_at: Date | string;
  amount_type: PriceAmountType | null;
  price_amount: number | null;
  minimum_amount: number | null;
  maximum_amount: number | null;
  preset_amount: number | null;
  price_per_seat: number | null;
  chosen_amount: number | null;
  chosen_seats: number | null;
  discount_type: DiscountTerms['type'] | null;
  discount_amount: number | null;
  basis_points: number | null;
  discount_duration: DiscountTerms['duration'] | null;
  duration_in_months: number | null;
}

const instant = (value: Date | string) => new Date(value);
const instantOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

function recurringChargeOf(row: RecurringChargeRow): RecurringCharge {
  const discount: DiscountTerms | null = row.discount_type &&
    row.discount_duration && {
      type: row.discount_type,
      amount: row.discount_amount,
      basisPoints: row.basis_points,
      duration: row.discount_duration,
      durationInMonths: row.duration_in_months,
    };
  return {
    interval: row.recurring_interval,
    price: row.amount_type && {
      amountType: row.amount_type,
      priceAmount: row.price_amount,
      minimumAmount: row.minimum_amount,
      maximumAmount: row.maximum_amount,
      presetAmount: row.preset_amount,
      pricePerSeat: row.price_per_seat,
    },
    choice: { amount: row.chosen_amount, seats: row.chosen_seats },
    discount: discount && { ...reductionOf(discount), ...termOf(discount) },
    billingAnchor: instant(row.billing_anchor),
    discountAppliedAt: instant(row.discount_applied_at),
  };
}

/** The recurring stocks: live subscriptions, MRR × 12, committed MRR × 12. */
interface RecurringStock {
  active: number;
  mrr12: number;
  committed12: number;
}

/** How a subscription moves the recurring stocks of its currency at an instant. */
interface StockChange extends RecurringStock {
  at: Date;
  currency: string;
}

/**
 * A subscription's moves of the stocks: in at its start (discounted), up when its discount stops,
 * out when it ends (and out of committed MRR when its cancellation was asked for).
 */
function stockChangesOf(row: RecurringChargeRow): StockChange[] {
  const { discounted, full, discountEndsAt } = recurringRevenue(recurringChargeOf(row));
  const ends = instantOrNull(row.ends);
  const uncommitted = instantOrNull(row.uncommitted);
  const isBefore = (moment: Date | null, limit: Date | null) =>
    moment !== null && (limit === null || moment < limit);
  const valueAt = (moment: Date) => (isBefore(discountEndsAt, moment) ? full : discounted);
  const change = (at: Date, stock: RecurringStock) => ({ at, currency: row.currency, ...stock });
  const changes = [
    change(instant(row.started_at), { active: 1, mrr12: discounted, committed12: discounted }),
  ];
  if (discountEndsAt && isBefore(discountEndsAt, ends)) {
    const rise = full - discounted;
    changes.push(
      change(discountEndsAt, {
        active: 0,
        mrr12: rise,
        committed12: isBefore(discountEndsAt, uncommitted) ? rise : 0,
      }),
    );
  }
  if (ends) changes.push(change(ends, { active: -1, mrr12: -valueAt(ends), committed12: 0 }));
  if (uncommitted) {
    changes.push(change(uncommitted, { active: 0, mrr12: 0, committed12: -valueAt(uncommitted) }));
  }
  return changes;
}

/** The index of the period holding `at` among their first instants: -1 before the first. */
function periodIndexOf(starts: Date[], at: Date): number {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] as Date) <= at) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/**
 * Active subscriptions, MRR and committed MRR per currency and period, as of each period's end:
 * every change up to it, added up exactly and the MRRs rounded once.
 */
function recurringMetrics(
  rows: RecurringChargeRow[],
  starts: Date[],
  end: Date,
): Map<string, MetricValues[]> {
  const stocks = new Map<string, RecurringStock[]>();
  const stocksOf = (currency: string) => {
    let found = stocks.get(currency);
    if (!found) {
      found = starts.map(() => ({ active: 0, mrr12: 0, committed12: 0 }));
      stocks.set(currency, found);
    }
    return found;
  };
  for (const change of rows.flatMap(stockChangesOf)) {
    if (change.at >= end) continue;
    const stock = stocksOf(change.currency)[Math.max(periodIndexOf(starts, change.at), 0)];
    if (!stock) continue;
    stock.active += change.active;
    stock.mrr12 += change.mrr12;
    stock.committed12 += change.committed12;
  }
  const monthly = (mrr12: number) => Number(divideRoundingHalfAway(BigInt(mrr12), 12n));
  const metrics = new Map<string, MetricValues[]>();
  for (const [currency, changes] of stocks) {
    const running: RecurringStock = { active: 0, mrr12: 0, committed12: 0 };
    metrics.set(
      currency,
      changes.map((change) => {
        running.active += change.active;
        running.mrr12 += change.mrr12;
        running.committed12 += change.committed12;
        return {
          active_subscriptions: running.active,
          monthly_recurring_revenue: monthly(running.mrr12),
          committed_monthly_recurring_revenue: monthly(running.committed12),
        };
      }),
    );
  }
  return metrics;
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

const moneyOf = (values: MetricValues): MetricValues =>
  Object.fromEntries(moneyMetricSlugs.map((slug) => [slug, values[slug] ?? 0]));

/** The order and recurring metrics of each currency, per period, by currency. */
function metricsByCurrency(
  orderRows: Row[],
  recurring: Map<string, MetricValues[]>,
  periodCount: number,
): Map<string, MetricValues[]> {
  const byCurrency = new Map<string, MetricValues[]>();
  const periodsOf = (currency: string) => {
    let found = byCurrency.get(currency);
    if (!found) {
      found = Array.from({ length: periodCount }, () => ({}));
      byCurrency.set(currency, found);
    }
    return found;
  };
  // The statement answers every period of a currency in a row, in order.
  orderRows.forEach((row, index) => {
    const period = periodsOf(String(row.currency))[index % periodCount] as MetricValues;
    for (const [slug, value] of Object.entries(row)) {
      if (slug !== 'currency') period[slug] = Number(value);
    }
  });
  for (const [currency, periods] of recurring) {
    for (const [index, period] of periodsOf(currency).entries()) {
      Object.assign(period, periods[index]);
    }
  }
  return byCurrency;
}

/**
 * The organization's metrics over the query's range, one period per interval step: one query
 * per source (orders, subscriptions' charges and counts, checkouts), run side by side. Counts
 * add every currency up; money metrics are the requested currency's, and each currency's apart.
 */
export async function readMetrics(
  em: EntityManager,
  query: MetricsQuery,
  filter: MetricsFilter,
): Promise<MetricsWire> {
  const run = <Result = Row>({ sql, params }: Statement) => em.execute<Result[]>(sql, params);
  const [bounds, orders, charges, subscriptions, checkouts] = await Promise.all([
    run<{ starts_at: Date | string; ends_at: Date | string }>(periodBoundsStatement(query)),
    run(ordersStatement(query, filter)),
    run<RecurringChargeRow>(recurringChargesStatement(query, filter)),
    run(subscriptionCountsStatement(query, filter)),
    run(checkoutsStatement(query, filter)),
  ]);
  const starts = bounds.map((row) => instant(row.starts_at));
  const end = instant(bounds[0]?.ends_at ?? new Date());
  const byCurrency = metricsByCurrency(
    orders,
    recurringMetrics(charges, starts, end),
    starts.length,
  );
  const currencies = [...byCurrency.keys()].sort();
  const requested = byCurrency.get(query.currency);
  const values = starts.map((_, index) => {
    const row: Row = { ...subscriptions[index], ...checkouts[index] };
    for (const periods of byCurrency.values()) {
      for (const [slug, value] of Object.entries(periods[index] ?? {})) {
        row[slug] = Number(row[slug] ?? 0) + value;
      }
    }
    Object.assign(row, moneyOf(requested?.[index] ?? {}));
    const period: MetricValues = {};
    for (const { slug } of metricDefinitions) period[slug] = Number(row[slug] ?? 0);
    period.checkouts_conversion = ratio(period.succeeded_checkouts ?? 0, period.checkouts ?? 0);
    return period;
  });
  const timestamps = starts.map(isoDateTime);
  const withTimestamps = (periods: MetricValues[]) =>
    periods.map((period, index) => ({ timestamp: timestamps[index] as string, ...period }));
  return {
    periods: withTimestamps(values),
    totals: { ...totalsOf(values), ...moneyOf(totalsOf(requested ?? [])) },
    metrics: metricDescriptors,
    currency: query.currency,
    currencies: currencies.map((currency): CurrencyMetricsWire => {
      const periods = byCurrency.get(currency) ?? [];
      return {
        currency,
        periods: withTimestamps(periods.map(moneyOf)),
        totals: moneyOf(totalsOf(periods)),
      };
    }),
  };
}
