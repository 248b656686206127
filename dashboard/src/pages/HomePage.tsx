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
  fetchSalesCurrency,
  isMetricsRange,
  type MetricsRange,
  rangeLabels,
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
  const currency = useQuery({
    queryKey: ['metrics', 'currency'],
    queryFn: ({ signal }) => fetchSalesCurrency(signal),
  });
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
  const failed = metrics.error ?? currency.error;

  return (
    <EntityPage
      title={organization.name}
      subtitle={`Signed in as ${session.user.name || session.user.email}`}
    >
      <Section title="Sales and subscriptions" actions={rangePicker}>
        {failed && (
          <ErrorMessage title="Could not load the metrics" error={failed}>
            <button
              type="button"
              className="button"
              onClick={() => Promise.all([metrics.refetch(), currency.refetch()])}
            >
              Try again
            </button>
          </ErrorMessage>
        )}
        {!failed && (metrics.isPending || currency.isPending) && (
          <p className="muted">Loading metrics…</p>
        )}
        {metrics.data && currency.data && (
          <>
            <Totals totals={metrics.data.totals} currency={currency.data} />
            {metrics.data.totals.orders === 0 && metrics.data.totals.active_subscriptions === 0 ? (
              <p className="muted">
                No orders nor subscriptions in this range yet: the chart appears with the first
                sale.
              </p>
            ) : (
              <MetricsChart
                rows={chartRowsOf(metrics.data)}
                descriptors={metrics.data.metrics}
                selected={chartMetrics}
                // A lone comma keeps "none picked" apart from "the default" (no parameter).
                onSelect={(slugs) => setParams({ chart: slugs.join(',') || ',' })}
                currency={currency.data}
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
