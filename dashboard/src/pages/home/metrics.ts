/** The home page's reading of GET /v1/metrics/: a range the viewer picks, in their time zone. */
import type { MetricsWire } from '../../../../commerce/metrics/schemas.ts';
import { formatMoney } from '../../../../domain/money.ts';
import { api } from '../../api/client';

export type MetricsRange = '30d' | '12m';

export const rangeLabels: Record<MetricsRange, string> = {
  '30d': 'Last 30 days',
  '12m': 'Last 12 months',
};

export const isMetricsRange = (value: string): value is MetricsRange => value in rangeLabels;

export type MetricDescriptor = MetricsWire['metrics'][string];

/** One period of the chart: its first instant and the value of every metric, by slug. */
export type ChartRow = MetricsWire['periods'][number];

/** The metrics offered first, and drawn (the first two) before the viewer picks. */
export const commonMetrics = [
  'revenue',
  'active_subscriptions',
  'orders',
  'monthly_recurring_revenue',
  'net_revenue',
  'new_subscriptions',
  'canceled_subscriptions',
  'checkouts_conversion',
];
export const defaultChartMetrics = commonMetrics.slice(0, 2);

const viewerTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** `YYYY-MM-DD` of a local date, as the API takes dates. */
const isoDate = (date: Date) =>
  [
    date.getFullYear(),
    String(date.getMonth() + 1).padStart(2, '0'),
    String(date.getDate()).padStart(2, '0'),
  ].join('-');

/** The query of a range ending today: 30 days by day, or 12 calendar months by month. */
export function metricsQueryOf(range: MetricsRange, today = new Date()) {
  const start =
    range === '30d'
      ? new Date(today.getFullYear(), today.getMonth(), today.getDate() - 29)
      : new Date(today.getFullYear(), today.getMonth() - 11, 1);
  return {
    start_date: isoDate(start),
    end_date: isoDate(today),
    interval: range === '30d' ? 'day' : 'month',
    timezone: viewerTimeZone(),
  } as const;
}

export const fetchMetrics = (range: MetricsRange, signal: AbortSignal) =>
  api.get<MetricsWire>('/v1/metrics/', { query: metricsQueryOf(range), signal });

/** The currencies the organization sold in over the range (or has subscriptions in). */
export const soldCurrencies = (metrics: MetricsWire) =>
  metrics.currencies.map(({ currency }) => currency);

/**
 * The currency whose amounts the page shows: the one picked, else the one the API answered in
 * (USD) when sold in, else the first sold in. Amounts of two currencies are never added.
 */
export function shownCurrency(metrics: MetricsWire, picked: string | null): string {
  const sold = soldCurrencies(metrics);
  if (picked && sold.includes(picked)) return picked;
  if (sold.includes(metrics.currency)) return metrics.currency;
  return sold[0] ?? metrics.currency;
}

const amountsIn = (metrics: MetricsWire, currency: string) =>
  metrics.currencies.find((each) => each.currency === currency);

/** Each period's metrics: counts of every currency, amounts of `currency` alone. */
export const chartRowsOf = (metrics: MetricsWire, currency: string): ChartRow[] =>
  metrics.periods.map(({ timestamp, ...values }, index) => {
    const { timestamp: _, ...amounts } = amountsIn(metrics, currency)?.periods[index] ?? {};
    return {
      ...Object.fromEntries(
        Object.entries({ ...values, ...amounts }).map(([slug, value]) => [slug, Number(value)]),
      ),
      timestamp,
    };
  });

/** The range's totals: counts of every currency, amounts of `currency` alone. */
export const totalsIn = (metrics: MetricsWire, currency: string): Record<string, number> => ({
  ...metrics.totals,
  ...amountsIn(metrics, currency)?.totals,
});

/** A metric's value as it reads: `$1,234.00` (cents), `42` (a count) or `12.5%` (a ratio). */
export function formatMetric(
  type: MetricDescriptor['type'],
  value: number,
  currency: string,
): string {
  if (type === 'currency') return formatMoney(Math.round(value), currency);
  if (type === 'percentage')
    return `${(value * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
  return value.toLocaleString();
}

/** A period's short label: `Nov 3` by day, `Nov 26` by month. */
export function periodLabel(timestamp: string, range: MetricsRange): string {
  const options: Intl.DateTimeFormatOptions =
    range === '30d' ? { month: 'short', day: 'numeric' } : { month: 'short', year: '2-digit' };
  return new Date(timestamp).toLocaleDateString(undefined, options);
}
