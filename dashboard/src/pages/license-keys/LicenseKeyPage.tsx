import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, type PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { ResourceName } from '../customers/ResourceName';
import { MetadataSummary } from '../events/MetadataSummary';
import { type LicenseKeyWithActivations, licenseKeysApi, licenseKeysKey } from './api';

const back = { to: '/license-keys', label: 'License keys' };
const limitOf = (limit: number | null) => (limit === null ? 'Unlimited' : String(limit));

export default function LicenseKeyPage({ params }: PageProps<'/license-keys/:id'>) {
  const { id } = params;
  const key = useQuery({
    queryKey: [...licenseKeysKey, id],
    queryFn: ({ signal }) => licenseKeysApi.get(id, signal),
  });
  if (!key.isSuccess) return <EntityPageFallback title="License key" back={back} query={key} />;
  const { data } = key;
  return (
    <EntityPage
      title={<code>{data.display_key}</code>}
      subtitle={
        <>
          <StatusBadge status={data.status} /> License key · <DateTime value={data.created_at} />
        </>
      }
      back={back}
      actions={<StatusActions licenseKey={data} />}
    >
      <Section title="Details">
        <Details
          items={[
            ['Status', <StatusBadge key="status" status={data.status} />],
            [
              'Customer',
              <Link key="customer" to={`/customers/${data.customer_id}`}>
                {data.customer.email}
              </Link>,
            ],
            [
              'Benefit',
              <Link key="benefit" to={`/benefits/${data.benefit_id}`}>
                <ResourceName path={`/v1/benefits/${data.benefit_id}`} field="description" />
              </Link>,
            ],
            ['Activations', `${data.activations.length} of ${limitOf(data.limit_activations)}`],
            ['Usage', `${data.usage} of ${limitOf(data.limit_usage)}`],
            ['Validations', String(data.validations)],
            ['Last validated', <DateTime key="validated" value={data.last_validated_at} />],
            [
              'Expires',
              data.expires_at ? <DateTime key="expires" value={data.expires_at} /> : 'Never',
            ],
            ['Key id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <Section title="Activations">
        <Activations licenseKey={data} />
      </Section>
    </EntityPage>
  );
}

/**
 * Disable (validations fail until enabled again), enable, and revoke. The API lets any status
 * follow any other; revoking is what a refund or a canceled subscription does to a key.
 */
function StatusActions({ licenseKey }: { licenseKey: LicenseKeyWithActivations }) {
  const queryClient = useQueryClient();
  const enable = useMutation({
    mutationFn: () => licenseKeysApi.setStatus(licenseKey, 'granted'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: licenseKeysKey }),
  });
  const { status } = licenseKey;
  return (
    <>
      {enable.isError && <ErrorMessage title="Could not enable the key" error={enable.error} />}
      {status !== 'granted' && (
        <button
          type="button"
          className="button"
          onClick={() => enable.mutate()}
          disabled={enable.isPending}
        >
          {enable.isPending ? 'Enabling key…' : 'Enable key'}
        </button>
      )}
      {status === 'granted' && (
        <DeleteAction
          label="Disable key"
          run={() => licenseKeysApi.setStatus(licenseKey, 'disabled')}
          queryKey={licenseKeysKey}
        >
          Apps validating or activating this key are refused until it is enabled again.
        </DeleteAction>
      )}
      {status !== 'revoked' && (
        <DeleteAction
          label="Revoke key"
          run={() => licenseKeysApi.setStatus(licenseKey, 'revoked')}
          queryKey={licenseKeysKey}
        >
          The key stops working for {licenseKey.customer.email}, as when its benefit is revoked.
        </DeleteAction>
      )}
    </>
  );
}

function Activations({ licenseKey }: { licenseKey: LicenseKeyWithActivations }) {
  if (licenseKey.activations.length === 0) {
    return <p className="muted">No device has activated this key.</p>;
  }
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Activations</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Details</th>
            <th scope="col">Activated</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {licenseKey.activations.map((activation) => (
            <tr key={activation.id}>
              <td>{activation.label}</td>
              <td>
                <MetadataSummary metadata={activation.meta} />
              </td>
              <td>
                <DateTime value={activation.created_at} />
              </td>
              <td>
                <DeleteAction
                  label="Deactivate"
                  run={() => licenseKeysApi.deactivate(licenseKey, activation.id)}
                  queryKey={licenseKeysKey}
                >
                  “{activation.label}” loses its activation, and its slot is free for another
                  device.
                </DeleteAction>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
