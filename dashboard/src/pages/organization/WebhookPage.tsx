import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, Section } from '../../components/EntityPage';
import { StatusBadge } from '../../components/StatusBadge';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type WebhookDelivery, type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { SecretOnce } from './SecretOnce';
import { usePermissions } from './useRole';

const column = createColumnHelper<WebhookDelivery>();

const deliveryColumns = [
  column.accessor('created_at', {
    header: 'Sent',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor((delivery) => delivery.webhook_event.type, { id: 'event', header: 'Event' }),
  column.accessor('attempt', { header: 'Attempt' }),
  column.accessor('succeeded', {
    header: 'Result',
    cell: (cell) => (
      <StatusBadge tone={cell.getValue() ? 'ok' : 'failed'}>
        {cell.getValue() ? 'succeeded' : 'failed'}
      </StatusBadge>
    ),
  }),
  column.accessor('http_code', {
    header: 'HTTP',
    cell: (cell) => cell.getValue() ?? <span className="muted">—</span>,
  }),
  column.accessor('duration_ms', { header: 'Time (ms)' }),
  column.accessor('error', {
    header: 'Error',
    cell: (cell) => cell.getValue() ?? <span className="muted">—</span>,
  }),
];

function EnableButton({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const enable = useMutation({
    mutationFn: () => webhooksApi.update(endpoint.id, { enabled: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey }),
  });
  return (
    <>
      <button
        type="button"
        className="button button-primary"
        onClick={() => enable.mutate()}
        disabled={enable.isPending}
      >
        {enable.isPending ? 'Enabling…' : 'Enable again'}
      </button>
      {enable.error && (
        <p className="field-error" role="alert">
          {enable.error.message}
        </p>
      )}
    </>
  );
}

/**
 * The signing secret is answered only when made: writers reset it (after confirming, since the
 * receiver must then be given the new one) and see the new one until they dismiss it.
 */
function SigningSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { isWriter } = usePermissions();
  const [confirming, setConfirming] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  if (secret) {
    return <SecretOnce secret={secret} what="signing secret" onDone={() => setSecret(null)} />;
  }
  return (
    <div className="row-actions">
      <span className="muted">Shown once, when the endpoint is added or its secret reset.</span>
      {isWriter && (
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          Reset secret
        </button>
      )}
      <ConfirmDialog
        open={confirming}
        title="Reset secret?"
        confirmLabel="Reset secret"
        tone="danger"
        onClose={() => setConfirming(false)}
        onConfirm={async () => setSecret((await webhooksApi.resetSecret(endpoint.id)).secret)}
      >
        Events are signed with a new secret from now on: {endpoint.url} must be given it.
      </ConfirmDialog>
    </div>
  );
}

/** An endpoint, its signing secret's reset, and its recent deliveries (newest first, every attempt). */
export default function WebhookPage({ params }: PageProps) {
  const id = params.id ?? '';
  const endpoint = useQuery({
    queryKey: [...webhooksKey, id],
    queryFn: ({ signal }) => webhooksApi.get(id, signal),
  });
  const fetchDeliveries = (query: PageQuery, signal: AbortSignal) =>
    webhooksApi.deliveries(id, query, signal);
  return (
    <Loaded query={endpoint} what="the webhook endpoint">
      {(loaded) => (
        <EntityPage
          title={loaded.url}
          subtitle={
            loaded.enabled ? (
              <StatusBadge tone="ok">enabled</StatusBadge>
            ) : (
              <StatusBadge tone="failed">disabled after failing</StatusBadge>
            )
          }
          back={{ to: '/organization/webhooks', label: 'Webhooks' }}
          actions={
            <>
              {!loaded.enabled && <EnableButton endpoint={loaded} />}
              <DeleteAction
                label="Delete endpoint"
                run={() => webhooksApi.delete(loaded.id)}
                queryKey={webhooksKey}
                then="/organization/webhooks"
              >
                No more events are sent to {loaded.url}.
              </DeleteAction>
            </>
          }
        >
          <Section title="Endpoint">
            <Details
              items={[
                ['Format', loaded.format],
                ['Events', loaded.events.join(', ') || '—'],
                ['Signing secret', <SigningSecret key="secret" endpoint={loaded} />],
                ['Created', <DateTime key="created" value={loaded.created_at} />],
              ]}
            />
          </Section>
          <Section title="Recent deliveries">
            <DataTable
              label="Deliveries"
              queryKey={[...webhooksKey, id, 'deliveries']}
              columns={deliveryColumns}
              getRowId={(delivery) => delivery.id}
              fetchPage={fetchDeliveries}
              empty="Nothing was sent to this endpoint yet."
            />
          </Section>
        </EntityPage>
      )}
    </Loaded>
  );
}
