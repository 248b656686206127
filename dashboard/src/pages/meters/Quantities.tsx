import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DateTime } from '../../components/DateTime';
import { ErrorMessage } from '../../components/ErrorMessage';
import { type MeterQuantities, metersApi, metersKey, type QuantitiesQuery } from './api';

const periods = {
  day: { label: 'Last 24 hours, by hour', interval: 'hour', hours: 24 },
  month: { label: 'Last 30 days, by day', interval: 'day', hours: 30 * 24 },
  year: { label: 'Last 12 months, by month', interval: 'month', hours: 365 * 24 },
} as const;
type Period = keyof typeof periods;

function queryOf(period: Period): QuantitiesQuery {
  const { interval, hours } = periods[period];
  // Whole hours, so the query (and its cache key) stays the same for an hour.
  const end = new Date();
  end.setUTCMinutes(0, 0, 0);
  const start = new Date(end.getTime() - hours * 3_600_000);
  return { start_timestamp: start.toISOString(), end_timestamp: end.toISOString(), interval };
}

const number = (value: number) => value.toLocaleString();

/** The meter's usage over a recent period, one row per interval, newest first. */
export function Quantities({ meterId }: { meterId: string }) {
  const [period, setPeriod] = useState<Period>('month');
  const query = queryOf(period);
  const quantities = useQuery({
    queryKey: [...metersKey, meterId, 'quantities', query],
    queryFn: ({ signal }) => metersApi.quantities(meterId, query, signal),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <label>
        Period{' '}
        <select value={period} onChange={(event) => setPeriod(event.target.value as Period)}>
          {Object.entries(periods).map(([value, { label }]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {quantities.isPending && <p className="muted">Loading usage…</p>}
      {quantities.isError && (
        <ErrorMessage title="Could not load the usage" error={quantities.error}>
          <button type="button" className="button" onClick={() => quantities.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {quantities.data && (
        <QuantitiesTable data={quantities.data} hourly={periods[period].interval === 'hour'} />
      )}
    </>
  );
}

function QuantitiesTable({ data, hourly }: { data: MeterQuantities; hourly: boolean }) {
  const rows = data.quantities.toReversed();
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Usage by interval</caption>
        <thead>
          <tr>
            <th scope="col">Interval starting</th>
            <th scope="col" className="col-quantity">
              Quantity
            </th>
          </tr>
        </thead>
        <tbody>
          {data.total === 0 && (
            <tr>
              <td colSpan={2} className="table-message">
                No usage in this period.
              </td>
            </tr>
          )}
          {data.total !== 0 &&
            rows.map((row) => (
              <tr key={row.timestamp}>
                <td>
                  <DateTime value={row.timestamp} format={hourly ? 'datetime' : 'date'} />
                </td>
                <td className="col-quantity">{number(row.quantity)}</td>
              </tr>
            ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td className="col-quantity">{number(data.total)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
