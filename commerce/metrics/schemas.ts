import { z } from 'zod';
import { dateTimeWireSchema } from '../wire.ts';

export const timeIntervals = ['hour', 'day', 'week', 'month', 'year'] as const;
export type TimeInterval = (typeof timeIntervals)[number];

/** The first day metrics can be asked from (Polar's: nothing was sold before). */
export const metricsMinDate = '2023-01-01';

/** The longest range, in days between start and end date, each interval may cover (Polar's). */
export const intervalMaxDays: Record<TimeInterval, number> = {
  hour: 7,
  day: 366,
  week: 7 * 53,
  month: 365 * 4,
  year: 365 * 10,
};

/** An IANA time zone name both Node and PostgreSQL know (`Europe/Paris`, `UTC`). */
function isTimeZoneName(value: string): boolean {
  // Offsets like `+01:00` are valid for Intl but are no IANA names (Polar refuses them).
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The single-valued parameters of GET /v1/metrics/ (the repeatable filters are read apart). */
export const metricsQuery = z
  .object({
    start_date: z.iso.date(),
    end_date: z.iso.date(),
    interval: z.enum(timeIntervals),
    timezone: z
      .string()
      .default('UTC')
      .refine(isTimeZoneName, { message: 'Invalid IANA time zone name.' }),
    currency: z
      .string()
      .toLowerCase()
      .regex(/^[a-z]{3}$/, 'Currency must be a 3-letter ISO 4217 code.')
      .default('usd')
      .describe(
        "Tollgate's: the currency of the money metrics in `periods` and `totals` (default usd, " +
          "Polar's). Amounts are never summed across currencies: `currencies` answers each one.",
      ),
  })
  .loose();
export type MetricsQuery = z.infer<typeof metricsQuery>;

export const billingTypeFilter = z.enum(['one_time', 'recurring']);

/** Polar's `MetricType`: how a value reads (a count, cents, a ratio from 0 to 1). */
const metricTypes = ['scalar', 'currency', 'percentage'] as const;
type MetricType = (typeof metricTypes)[number];

/**
 * How a metric's total over the range is made from its periods: flows add up, stocks (and
 * running totals) take the last period's value, ratios divide the totals they are made of.
 */
type TotalRule = 'sum' | 'last' | 'average_order_value' | 'net_average_order_value' | 'conversion';

interface MetricDefinition {
  slug: string;
  display_name: string;
  type: MetricType;
  total: TotalRule;
  /** Tollgate's: what the metric counts, where its name does not say it all. */
  description?: string;
}

const metric = (
  slug: string,
  display_name: string,
  type: MetricType,
  total: TotalRule,
  description?: string,
): MetricDefinition => ({ slug, display_name, type, total, ...(description && { description }) });

const mrrDescription =
  'What the active subscriptions bill per month in the currency: each static price (a ' +
  'pay-what-you-want price as chosen, a seat-based one times its seats) less the discount while ' +
  'it applies; a year counts / 12, a week × 4, a day × 30. Metered usage is not included.';

/** The 31 metrics of Polar's `MetricsResponse`, in Polar's order. */
export const metricDefinitions = [
  metric('orders', 'Orders', 'scalar', 'sum'),
  metric('revenue', 'Revenue', 'currency', 'sum'),
  metric('net_revenue', 'Net Revenue', 'currency', 'sum'),
  metric('cumulative_revenue', 'Cumulative Revenue', 'currency', 'last'),
  metric('net_cumulative_revenue', 'Net Cumulative Revenue', 'currency', 'last'),
  metric('average_order_value', 'Average Order Value', 'currency', 'average_order_value'),
  metric(
    'net_average_order_value',
    'Net Average Order Value',
    'currency',
    'net_average_order_value',
  ),
  metric('one_time_products', 'One-Time Products', 'scalar', 'sum'),
  metric('one_time_products_revenue', 'One-Time Products Revenue', 'currency', 'sum'),
  metric('one_time_products_net_revenue', 'One-Time Products Net Revenue', 'currency', 'sum'),
  metric('new_subscriptions', 'New Subscriptions', 'scalar', 'sum'),
  metric('new_subscriptions_revenue', 'New Subscriptions Revenue', 'currency', 'sum'),
  metric('new_subscriptions_net_revenue', 'New Subscriptions Net Revenue', 'currency', 'sum'),
  metric('renewed_subscriptions', 'Renewed Subscriptions', 'scalar', 'sum'),
  metric('renewed_subscriptions_revenue', 'Renewed Subscriptions Revenue', 'currency', 'sum'),
  metric(
    'renewed_subscriptions_net_revenue',
    'Renewed Subscriptions Net Revenue',
    'currency',
    'sum',
  ),
  metric('active_subscriptions', 'Active Subscriptions', 'scalar', 'last'),
  metric(
    'monthly_recurring_revenue',
    'Monthly Recurring Revenue',
    'currency',
    'last',
    mrrDescription,
  ),
  metric(
    'committed_monthly_recurring_revenue',
    'Committed Monthly Recurring Revenue',
    'currency',
    'last',
    `${mrrDescription} Subscriptions set to cancel are left out.`,
  ),
  metric('checkouts', 'Checkouts', 'scalar', 'sum'),
  metric('succeeded_checkouts', 'Succeeded Checkouts', 'scalar', 'sum'),
  metric('checkouts_conversion', 'Checkouts Conversion Rate', 'percentage', 'conversion'),
  metric('canceled_subscriptions', 'Canceled Subscriptions', 'scalar', 'sum'),
  metric(
    'canceled_subscriptions_customer_service',
    'Canceled Subscriptions - Customer Service',
    'scalar',
    'sum',
  ),
  metric(
    'canceled_subscriptions_low_quality',
    'Canceled Subscriptions - Low Quality',
    'scalar',
    'sum',
  ),
  metric(
    'canceled_subscriptions_missing_features',
    'Canceled Subscriptions - Missing Features',
    'scalar',
    'sum',
  ),
  metric(
    'canceled_subscriptions_switched_service',
    'Canceled Subscriptions - Switched Service',
    'scalar',
    'sum',
  ),
  metric(
    'canceled_subscriptions_too_complex',
    'Canceled Subscriptions - Too Complex',
    'scalar',
    'sum',
  ),
  metric(
    'canceled_subscriptions_too_expensive',
    'Canceled Subscriptions - Too Expensive',
    'scalar',
    'sum',
  ),
  metric('canceled_subscriptions_unused', 'Canceled Subscriptions - Unused', 'scalar', 'sum'),
  metric('canceled_subscriptions_other', 'Canceled Subscriptions - Other', 'scalar', 'sum'),
] as const;

/** The slugs of the money metrics (cents of one currency), which are answered per currency. */
export const moneyMetricSlugs: readonly string[] = metricDefinitions
  .filter((definition) => definition.type === 'currency')
  .map(({ slug }) => slug);

/** A period's (or the totals') value of every metric, by slug. */
export type MetricValues = Record<string, number>;

type MetricPeriodWire = { timestamp: string } & Record<string, number | string>;

/** Tollgate's: the money metrics of one currency, per period and over the range. */
export interface CurrencyMetricsWire {
  currency: string;
  periods: MetricPeriodWire[];
  totals: MetricValues;
}

/**
 * Polar's `MetricsResponse`: each period's start instant and values, their totals, what each is.
 * Tollgate adds `currency` (that of the money metrics of `periods` and `totals`) and
 * `currencies` (the money metrics of every currency sold in, apart); Polar's SDK ignores both.
 */
export interface MetricsWire {
  periods: MetricPeriodWire[];
  totals: MetricValues;
  metrics: Record<
    string,
    { slug: string; display_name: string; type: MetricType; description?: string }
  >;
  currency: string;
  currencies: CurrencyMetricsWire[];
}

const metricPeriodWireSchema = z
  .object({ timestamp: dateTimeWireSchema })
  .catchall(z.union([z.number(), z.string()]));

/** Polar's `MetricsResponse`, with Tollgate's `currency` and `currencies`. */
export const metricsWireSchema = z
  .object({
    periods: z.array(metricPeriodWireSchema),
    totals: z.record(z.string(), z.number()),
    metrics: z.record(
      z.string(),
      z.object({
        slug: z.string(),
        display_name: z.string(),
        type: z.enum(metricTypes),
        description: z.string().optional(),
      }),
    ),
    currency: z
      .string()
      .describe("Tollgate's: the currency of the money metrics of `periods` and `totals`."),
    currencies: z
      .array(
        z.object({
          currency: z.string(),
          periods: z.array(metricPeriodWireSchema),
          totals: z.record(z.string(), z.number()),
        }),
      )
      .describe(
        "Tollgate's: the money metrics (type `currency`) of each currency with orders or " +
          'subscriptions in the filter, by currency; one currency is never added to another.',
      ),
  })
  .meta({ id: 'MetricsResponse' });

/** Polar's `MetricsLimits`. */
export const metricsLimitsWireSchema = z
  .object({
    min_date: z.iso.date(),
    intervals: z.record(z.enum(timeIntervals), z.object({ max_days: z.int() })),
  })
  .meta({ id: 'MetricsLimits' });

/** The `metrics` descriptors, the same in every answer. */
export const metricDescriptors: MetricsWire['metrics'] = Object.fromEntries(
  metricDefinitions.map(({ slug, display_name, type, description }) => [
    slug,
    { slug, display_name, type, ...(description && { description }) },
  ]),
);

/** Polar's `MetricsLimits`: from when, and over how many days per interval, metrics answer. */
export const metricsLimitsWire: z.input<typeof metricsLimitsWireSchema> = {
  min_date: metricsMinDate,
  intervals: Object.fromEntries(
    timeIntervals.map((interval) => [interval, { max_days: intervalMaxDays[interval] }]),
  ) as Record<TimeInterval, { max_days: number }>,
};
