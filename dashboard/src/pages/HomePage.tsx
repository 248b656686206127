import { useQuery } from '@tanstack/react-query';
import { useSignedIn } from '../auth/session';
import { EntityPage, Section } from '../components/EntityPage';
import { ErrorMessage } from '../components/ErrorMessage';
import { Money } from '../components/Money';
import { Link, useQueryState } from '../router';
import { MetricsChart } from './home/MetricsChart';
import {
  chartRowsOf,
  defaultChartMetrics,
  fetchMetrics,
  isMetricsRange,
  type MetricsRange,
  rangeLabels,
  shownCurrency,
  soldCurrencies,
  totalsIn,
} from './home/metrics';
import './home/home.css';

export default function HomePage() {
  const { organization, session } = useSignedIn();
  const [params, setParams] = useQueryState();
  const requested = params.get('range') ?? '';
  const range: MetricsRange = isMetricsRange(requested) ? requested : '30d';
  // The picked metrics stay in the URL, so a reload or a shared link draws the same chart.
  const picked = params.get('chart');
  const chartMetrics = picked === null ? defaultChartMetrics : picked.split(',').filter(Boolean);
  const metrics = useQuery({
    queryKey: ['metrics', range],
    queryFn: ({ signal }) => fetchMetrics(range, signal),
  });
  // Amounts are shown in one currency at a time, the one picked staying in the URL.
  const currency = metrics.data && shownCurrency(metrics.data, params.get('currency'));
  const currencies = metrics.data ? soldCurrencies(metrics.data) : [];
  const rangePicker = (
    <fieldset className="range-picker">
      <legend className="visually-hidden">Range</legend>
      {Object.entries(rangeLabels).map(([value, label]) => (
        <label key={value}>
          <input
            type="radio"
            name="range"
            value={value}
            checked={value === range}
            onChange={() => setParams({ range: value === '30d' ? null : value })}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
  const currencyPicker = currencies.length > 1 && (
    <label className="currency-picker">
      Currency
      <select value={currency} onChange={(event) => setParams({ currency: event.target.value })}>
        {currencies.map((code) => (
          <option key={code} value={code}>
            {code.toUpperCase()}
          </option>
        ))}
      </select>
    </label>
  );
  const failed = metrics.error;

  return (
    <EntityPage
      title={organization.name}
      subtitle={`Signed in as ${session.user.name || session.user.email}`}
    >
      <Section
        title="Sales and subscriptions"
        actions={
          <div className="metrics-pickers">
            {currencyPicker}
            {rangePicker}
          </div>
        }
      >
        {failed && (
          <ErrorMessage title="Could not load the metrics" error={failed}>
            <button type="button" className="button" onClick={() => metrics.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        )}
        {!failed && metrics.isPending && <p className="muted">Loading metrics…</p>}
        {metrics.data && currency && (
          <>
            <Totals totals={totalsIn(metrics.data, currency)} currency={currency} />
            {metrics.data.totals.orders === 0 && metrics.data.totals.active_subscriptions === 0 ? (
              <p className="muted">
                No orders nor subscriptions in this range yet: the chart appears with the first
                sale.
              </p>
            ) : (
              <MetricsChart
                rows={chartRowsOf(metrics.data, currency)}
                descriptors={metrics.data.metrics}
                selected={chartMetrics}
                // A lone comma keeps "none picked" apart from "the default" (no parameter).
                onSelect={(slugs) => setParams({ chart: slugs.join(',') || ',' })}
                currency={currency}
                range={range}
              />
            )}
          </>
        )}
      </Section>
      <Section title="Get started">
        <ul className="link-list">
          <li>
            <Link to="/products">Create a product</Link> and share its checkout link.
          </li>
          <li>
            <Link to="/orders">See orders</Link> and <Link to="/subscriptions">subscriptions</Link>.
          </li>
          <li>
            <Link to="/failed-renewals">Fix failed renewals</Link>.
          </li>
        </ul>
      </Section>
    </EntityPage>
  );
}

/** The range's headline numbers: flows add up over it, stocks are as of its end. */
function Totals({ totals, currency }: { totals: Record<string, number>; currency: string }) {
  const money = (slug: string) => <Money amount={totals[slug] ?? 0} currency={currency} />;
  return (
    <dl className="summary">
      <div>
        <dt>Revenue</dt>
        <dd>{money('revenue')}</dd>
      </div>
      <div>
        <dt>Net revenue</dt>
        <dd>{money('net_revenue')}</dd>
      </div>
      <div>
        <dt>Orders</dt>
        <dd>{totals.orders ?? 0}</dd>
      </div>
      <div>
        <dt>Active subscriptions</dt>
        <dd>{totals.active_subscriptions ?? 0}</dd>
      </div>
      <div>
        <dt>Monthly recurring revenue</dt>
        <dd>{money('monthly_recurring_revenue')}</dd>
      </div>
    </dl>
  );
}
