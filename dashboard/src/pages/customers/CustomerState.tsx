import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { type CustomerState, fetchLicenseKeys, type LicenseKey } from './api';
import { ResourceName } from './ResourceName';
import '../orders/sales.css';

/** What the customer has now: active subscriptions, granted benefits (with keys), meters. */
export function CustomerStateSections({ state }: { state: CustomerState }) {
  return (
    <>
      <Section title="Active subscriptions">
        {state.active_subscriptions.length === 0 ? (
          <p className="muted">No active subscriptions.</p>
        ) : (
          <SimpleTable
            caption="Active subscriptions"
            headers={['Product', 'Status', 'Amount', 'Renews or ends']}
            rows={state.active_subscriptions.map((subscription) => [
              subscription.id,
              <Link key="product" to={`/subscriptions/${subscription.id}`}>
                <ResourceName path={`/v1/products/${subscription.product_id}`} />
              </Link>,
              <StatusBadge key="status" status={subscription.status} />,
              <span key="amount">
                <Money amount={subscription.amount} currency={subscription.currency} /> /{' '}
                {subscription.recurring_interval}
              </span>,
              <span key="end">
                {subscription.cancel_at_period_end ? 'Ends ' : 'Renews '}
                <DateTime value={subscription.current_period_end} />
              </span>,
            ])}
          />
        )}
      </Section>
      <Section title="Granted benefits">
        <GrantedBenefits state={state} />
      </Section>
      <Section title="Active meters">
        {state.active_meters.length === 0 ? (
          <p className="muted">No active meters.</p>
        ) : (
          <SimpleTable
            caption="Active meters"
            headers={['Meter', 'Consumed', 'Credited', 'Balance']}
            rows={state.active_meters.map((meter) => [
              meter.id,
              <ResourceName key="meter" path={`/v1/meters/${meter.meter_id}`} />,
              meter.consumed_units,
              meter.credited_units,
              meter.balance,
            ])}
          />
        )}
      </Section>
    </>
  );
}

function GrantedBenefits({ state }: { state: CustomerState }) {
  const keys = useQuery({
    queryKey: ['license-keys', { customer_id: state.id }],
    queryFn: ({ signal }) => fetchLicenseKeys(state.id, signal),
    enabled: state.granted_benefits.some((grant) => grant.benefit_type === 'license_keys'),
  });
  if (state.granted_benefits.length === 0) return <p className="muted">No granted benefits.</p>;
  const keysOf = (benefitId: string) =>
    keys.data?.items.filter((key) => key.benefit_id === benefitId) ?? [];
  return (
    <>
      {keys.isError && <ErrorMessage title="Could not load license keys" error={keys.error} />}
      <SimpleTable
        caption="Granted benefits"
        headers={['Benefit', 'Type', 'Granted', 'License keys']}
        rows={state.granted_benefits.map((grant) => [
          grant.id,
          <ResourceName
            key="benefit"
            path={`/v1/benefits/${grant.benefit_id}`}
            field="description"
          />,
          grant.benefit_type.replaceAll('_', ' '),
          <DateTime key="granted" value={grant.granted_at} />,
          grant.benefit_type === 'license_keys' ? (
            <ul key="keys" className="plain-list">
              {keysOf(grant.benefit_id).map((key) => (
                <li key={key.id}>
                  <LicenseKeyValue licenseKey={key} />
                </li>
              ))}
            </ul>
          ) : (
            <span key="keys" className="muted">
              —
            </span>
          ),
        ])}
      />
    </>
  );
}

/** A key shown masked until asked for: sellers read them out to customers, not to onlookers. */
function LicenseKeyValue({ licenseKey }: { licenseKey: LicenseKey }) {
  const [shown, setShown] = useState(false);
  return (
    <>
      <code>{shown ? licenseKey.key : licenseKey.display_key}</code>{' '}
      <StatusBadge status={licenseKey.status} />{' '}
      <button type="button" className="button" onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Show'}
        <span className="visually-hidden"> license key</span>
      </button>
      {licenseKey.limit_usage !== null && (
        <span className="muted">
          {' '}
          {licenseKey.usage} of {licenseKey.limit_usage} uses
        </span>
      )}
    </>
  );
}

interface SimpleTableProps {
  caption: string;
  headers: string[];
  /** Each row: its key, then its cells. */
  rows: [key: string, ...cells: ReactNode[]][];
}

/** A short table of a few rows that need no paging (a customer's subscriptions, meters). */
function SimpleTable({ caption, headers, rows }: SimpleTableProps) {
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {headers.map((header) => (
              <th key={header} scope="col">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([key, ...cells]) => (
            <tr key={key}>
              {cells.map((cell, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells are fixed columns
                <td key={index}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
