import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { DataTable, type PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, Section } from '../../components/EntityPage';
import { StatusBadge } from '../../components/StatusBadge';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type WebhookDelivery, type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { CopyButton } from './CopyButton';

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

/** An endpoint, its secret, and its recent deliveries (newest first, every attempt). */
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
                [
                  'Signing secret',
                  <CopyButton key="secret" text={loaded.secret} label="Copy secret" />,
                ],
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
