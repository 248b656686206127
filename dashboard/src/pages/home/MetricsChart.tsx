/**
 * Revenue (bars, left axis) and active subscriptions (line, right axis) per period, drawn as
 * inline SVG: no chart library in the bundle. The picture is one labelled image; its numbers
 * are in a table below it for screen readers and for anyone who wants them exactly.
 */
import { useId } from 'react';
import { formatMoney } from '../../../../domain/money.ts';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
import { type ChartPoint, type MetricsRange, periodLabel } from './metrics';

const width = 720;
const height = 260;
const margin = { top: 16, right: 48, bottom: 28, left: 72 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;
const tickCount = 4;

/** A round axis maximum (1, 2 or 5 × a power of ten) at or above `value`, in `unit` steps. */
function niceMax(value: number, unit: number): number {
  const steps = Math.max(Math.ceil(value / unit / tickCount), 1);
  const power = 10 ** Math.floor(Math.log10(steps));
  const nice = [1, 2, 5, 10].find((factor) => factor * power >= steps) ?? 10;
  return nice * power * unit * tickCount;
}

interface MetricsChartProps {
  points: ChartPoint[];
  currency: string;
  range: MetricsRange;
}

export function MetricsChart({ points, currency, range }: MetricsChartProps) {
  const titleId = useId();
  const descriptionId = useId();
  // Revenue ticks fall on whole currency units (100 minor units).
  const revenueMax = niceMax(Math.max(...points.map((point) => point.revenue), 0), 100);
  const subscriptionsMax = niceMax(
    Math.max(...points.map((point) => point.activeSubscriptions), 0),
    1,
  );
  const slot = plotWidth / Math.max(points.length, 1);
  const xOf = (index: number) => margin.left + slot * index + slot / 2;
  const yOf = (value: number, max: number) => margin.top + plotHeight * (1 - value / max);
  // About eight labels fit under the axis, whatever the number of periods.
  const labelEvery = Math.ceil(points.length / 8);
  const ticks = Array.from({ length: tickCount + 1 }, (_, index) => index / tickCount);
  const first = points[0];
  const last = points.at(-1);
  const totalRevenue = points.reduce((sum, point) => sum + point.revenue, 0);
  const linePath = points
    .map((point, index) => `${xOf(index)},${yOf(point.activeSubscriptions, subscriptionsMax)}`)
    .join(' ');

  return (
    <figure className="metrics-chart">
      <ul className="chart-legend" aria-hidden="true">
        <li className="legend-revenue">Revenue ({currency.toUpperCase()})</li>
        <li className="legend-subscriptions">Active subscriptions</li>
      </ul>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby={`${titleId} ${descriptionId}`}
      >
        <title id={titleId}>
          Revenue and active subscriptions, {range === '30d' ? 'by day' : 'by month'}
        </title>
        <desc id={descriptionId}>
          {first && last
            ? `From ${periodLabel(first.timestamp, range)} to ${periodLabel(last.timestamp, range)}: ` +
              `revenue ${formatMoney(totalRevenue, currency)} in all; active subscriptions ` +
              `${first.activeSubscriptions} at the start, ${last.activeSubscriptions} at the end.`
            : 'No periods.'}
        </desc>
        {ticks.map((fraction) => (
          <g key={fraction} className="chart-tick">
            <line
              x1={margin.left}
              x2={width - margin.right}
              y1={yOf(fraction, 1)}
              y2={yOf(fraction, 1)}
            />
            <text x={margin.left - 6} y={yOf(fraction, 1)} textAnchor="end" dy="0.32em">
              {formatMoney(Math.round(revenueMax * fraction), currency)}
            </text>
            <text x={width - margin.right + 6} y={yOf(fraction, 1)} dy="0.32em">
              {Math.round(subscriptionsMax * fraction)}
            </text>
          </g>
        ))}
        {points.map((point, index) => (
          <g key={point.timestamp}>
            <rect
              className="chart-bar"
              x={xOf(index) - slot * 0.35}
              width={slot * 0.7}
              y={yOf(point.revenue, revenueMax)}
              height={plotHeight - (yOf(point.revenue, revenueMax) - margin.top)}
            >
              <title>
                {periodLabel(point.timestamp, range)}: {formatMoney(point.revenue, currency)},{' '}
                {point.activeSubscriptions} active subscriptions
              </title>
            </rect>
            {index % labelEvery === 0 && (
              <text className="chart-label" x={xOf(index)} y={height - 8} textAnchor="middle">
                {periodLabel(point.timestamp, range)}
              </text>
            )}
          </g>
        ))}
        <polyline className="chart-line" points={linePath} />
        {points.map((point, index) => (
          <circle
            key={point.timestamp}
            className="chart-dot"
            cx={xOf(index)}
            cy={yOf(point.activeSubscriptions, subscriptionsMax)}
            r={3}
          />
        ))}
      </svg>
      <details>
        <summary>Show the numbers</summary>
        <table className="data-table">
          <caption className="visually-hidden">Revenue and active subscriptions by period</caption>
          <thead>
            <tr>
              <th scope="col">Period starting</th>
              <th scope="col" className="col-amount">
                Revenue
              </th>
              <th scope="col" className="col-amount">
                Active subscriptions
              </th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.timestamp}>
                <td>
                  <DateTime value={point.timestamp} format="date" />
                </td>
                <td className="col-amount">
                  <Money amount={point.revenue} currency={currency} />
                </td>
                <td className="col-amount">{point.activeSubscriptions}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
