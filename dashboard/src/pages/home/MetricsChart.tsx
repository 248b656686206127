/**
 * The home page's chart, drawn by Recharts: the metrics the viewer picks (any of the ones
 * GET /v1/metrics/ answers) per period, amounts as bars on the left axis, counts and rates as
 * lines on the right, with a tooltip per period. Its numbers are also in a table below it, for
 * screen readers and for anyone who wants them exactly.
 */
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatMoney } from '../../../../domain/money.ts';
import { DateTime } from '../../components/DateTime';
import {
  type ChartRow,
  commonMetrics,
  formatMetric,
  type MetricDescriptor,
  type MetricsRange,
  periodLabel,
} from './metrics';

/** One colour per drawn metric, in the order picked. */
const palette = ['#3b6fe0', '#146c36', '#b4541f', '#7a3fc1', '#a61b1b', '#0f7a8a', '#7a4b00'];

interface MetricsChartProps {
  rows: ChartRow[];
  /** What each metric is (name, and whether cents, a count or a ratio), by slug. */
  descriptors: Record<string, MetricDescriptor>;
  selected: string[];
  onSelect: (slugs: string[]) => void;
  currency: string;
  range: MetricsRange;
}

export function MetricsChart({
  rows,
  descriptors,
  selected,
  onSelect,
  currency,
  range,
}: MetricsChartProps) {
  const drawn = selected.flatMap((slug) => descriptors[slug] ?? []);
  const hasAmounts = drawn.some((metric) => metric.type === 'currency');
  const hasCounts = drawn.some((metric) => metric.type !== 'currency');
  const format = (slug: string, value: number) =>
    formatMetric(descriptors[slug]?.type ?? 'scalar', value, currency);

  return (
    <figure className="metrics-chart">
      <MetricPicker descriptors={descriptors} selected={selected} onSelect={onSelect} />
      <figcaption className="visually-hidden">
        {[
          ...drawn.map((metric) => metric.display_name),
          range === '30d' ? 'by day' : 'by month',
        ].join(', ')}
      </figcaption>
      {drawn.length === 0 ? (
        <p className="muted">Pick a metric to draw.</p>
      ) : (
        <ResponsiveContainer width="100%" height={280}>
          <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e5ea" />
            <XAxis
              dataKey="timestamp"
              tickFormatter={(timestamp: string) => periodLabel(timestamp, range)}
              minTickGap={16}
              fontSize={11}
            />
            {hasAmounts && (
              <YAxis
                yAxisId="amount"
                orientation="left"
                width={80}
                fontSize={11}
                tickFormatter={(value: number) => formatMoney(value, currency)}
              />
            )}
            {hasCounts && (
              <YAxis yAxisId="count" orientation="right" width={48} fontSize={11} allowDecimals />
            )}
            <Tooltip
              labelFormatter={(timestamp) => periodLabel(String(timestamp), range)}
              formatter={(value, _name, item) => format(String(item.dataKey), Number(value))}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {drawn.map((metric) => {
              const color = palette[selected.indexOf(metric.slug) % palette.length];
              return metric.type === 'currency' ? (
                <Bar
                  key={metric.slug}
                  yAxisId="amount"
                  dataKey={metric.slug}
                  name={metric.display_name}
                  fill={color}
                  isAnimationActive={false}
                />
              ) : (
                <Line
                  key={metric.slug}
                  yAxisId="count"
                  dataKey={metric.slug}
                  name={metric.display_name}
                  stroke={color}
                  strokeWidth={2}
                  dot={rows.length <= 31}
                  isAnimationActive={false}
                />
              );
            })}
          </ComposedChart>
        </ResponsiveContainer>
      )}
      <details>
        <summary>Show the numbers</summary>
        <table className="data-table">
          <caption className="visually-hidden">The chart's metrics by period</caption>
          <thead>
            <tr>
              <th scope="col">Period starting</th>
              {drawn.map((metric) => (
                <th key={metric.slug} scope="col" className="col-amount">
                  {metric.display_name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.timestamp}>
                <td>
                  <DateTime value={row.timestamp} format="date" />
                </td>
                {drawn.map((metric) => (
                  <td key={metric.slug} className="col-amount">
                    {format(metric.slug, Number(row[metric.slug] ?? 0))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** Checkboxes for the metrics sellers look at most, and every other one a click further. */
function MetricPicker({
  descriptors,
  selected,
  onSelect,
}: Pick<MetricsChartProps, 'descriptors' | 'selected' | 'onSelect'>) {
  const toggle = (slug: string, on: boolean) =>
    onSelect(on ? [...selected, slug] : selected.filter((picked) => picked !== slug));
  const checkbox = (metric: MetricDescriptor) => (
    <label key={metric.slug}>
      <input
        type="checkbox"
        checked={selected.includes(metric.slug)}
        onChange={(event) => toggle(metric.slug, event.target.checked)}
      />
      {metric.display_name}
    </label>
  );
  const all = Object.values(descriptors);
  const others = all.filter((metric) => !commonMetrics.includes(metric.slug));
  return (
    <fieldset className="metric-picker">
      <legend className="visually-hidden">Metrics to draw</legend>
      {all.filter((metric) => commonMetrics.includes(metric.slug)).map(checkbox)}
      {others.length > 0 && (
        <details>
          <summary>More metrics</summary>
          <div className="metric-picker-more">{others.map(checkbox)}</div>
        </details>
      )}
    </fieldset>
  );
}
