import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useEffect, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { StatusBadge } from '../../components/StatusBadge';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type WebhookDelivery, type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { EditWebhookForm } from './EditWebhookForm';
import { SecretOnce } from './SecretOnce';
import { usePermissions } from './useRole';
import { WebhookDeliveryDialog } from './WebhookDeliveryDialog';

const column = createColumnHelper<WebhookDelivery>();

const deliveryColumns = (view: (delivery: WebhookDelivery) => void) => [
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
  column.display({
    id: 'view',
    header: () => <span className="visually-hidden">Details</span>,
    cell: (cell) => (
      <button type="button" className="button" onClick={() => view(cell.row.original)}>
        Payload and response
      </button>
    ),
  }),
];

/** Pauses or resumes the endpoint: a disabled endpoint keeps its events queued for later. */
function EnabledToggle({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => webhooksApi.update(endpoint.id, { enabled: !endpoint.enabled }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey }),
  });
  const label = endpoint.enabled ? 'Disable' : 'Enable again';
  return (
    <>
      <button
        type="button"
        className={endpoint.enabled ? 'button' : 'button button-primary'}
        onClick={() => toggle.mutate()}
        disabled={toggle.isPending}
      >
        {toggle.isPending ? `${label}…` : label}
      </button>
      {toggle.error && (
        <p className="field-error" role="alert">
          {toggle.error.message}
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

/**
 * An endpoint: its settings (edited in place), a test event to try it, pausing it, its signing
 * secret's reset, and its recent deliveries (newest first, every attempt), each with the payload
 * sent and the answer, and a redelivery. What was just sent is followed until its delivery shows.
 */
export default function WebhookPage({ params }: PageProps<'/organization/webhooks/:id'>) {
  const id = params.id;
  const { isWriter } = usePermissions();
  const [editing, setEditing] = useState(false);
  const [shown, setShown] = useState<WebhookDelivery | null>(null);
  const [followed, setFollowed] = useState<FollowedEvent | null>(null);
  const endpoint = useQuery({
    queryKey: [...webhooksKey, id],
    queryFn: ({ signal }) => webhooksApi.get(id, signal),
  });
  const sendTest = useMutation({
    mutationFn: () => webhooksApi.sendTest(id),
    onSuccess: (event) =>
      setFollowed({ what: 'Test event', eventId: event.id, after: event.created_at }),
  });
  const redeliver = async (delivery: WebhookDelivery) => {
    await webhooksApi.redeliver(delivery.webhook_event.id);
    setFollowed({
      what: 'Redelivery',
      eventId: delivery.webhook_event.id,
      after: delivery.created_at,
    });
  };
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
              <StatusBadge tone="failed">disabled</StatusBadge>
            )
          }
          back={{ to: '/organization/webhooks', label: 'Webhooks' }}
          actions={
            isWriter && (
              <>
                <button
                  type="button"
                  className="button"
                  title="Sends organization.updated with the organization as it is"
                  onClick={() => sendTest.mutate()}
                  disabled={sendTest.isPending}
                >
                  {sendTest.isPending ? 'Sending test event…' : 'Send test event'}
                </button>
                <EnabledToggle endpoint={loaded} />
                <DeleteAction
                  label="Delete endpoint"
                  run={() => webhooksApi.delete(loaded.id)}
                  queryKey={webhooksKey}
                  then="/organization/webhooks"
                >
                  No more events are sent to {loaded.url}.
                </DeleteAction>
              </>
            )
          }
        >
          {sendTest.error && (
            <ErrorMessage title="Could not send the test event" error={sendTest.error} />
          )}
          {followed && (
            <FollowedDelivery
              endpointId={id}
              followed={followed}
              enabled={loaded.enabled}
              onView={setShown}
            />
          )}
          <Section
            title="Endpoint"
            actions={
              isWriter &&
              !editing && (
                <button type="button" className="button" onClick={() => setEditing(true)}>
                  Edit
                </button>
              )
            }
          >
            {editing ? (
              <EditWebhookForm endpoint={loaded} onDone={() => setEditing(false)} />
            ) : (
              <Details
                items={[
                  ['Format', loaded.format],
                  ['Events', loaded.events.join(', ') || '—'],
                  ['Signing secret', <SigningSecret key="secret" endpoint={loaded} />],
                  ['Created', <DateTime key="created" value={loaded.created_at} />],
                ]}
              />
            )}
          </Section>
          <Section title="Recent deliveries">
            <DataTable
              label="Deliveries"
              queryKey={deliveriesKey(id)}
              columns={deliveryColumns(setShown)}
              getRowId={(delivery) => delivery.id}
              fetchPage={fetchDeliveries}
              empty="Nothing was sent to this endpoint yet."
            />
          </Section>
          <WebhookDeliveryDialog
            delivery={shown}
            canRedeliver={isWriter}
            onRedeliver={redeliver}
            onClose={() => setShown(null)}
          />
        </EntityPage>
      )}
    </Loaded>
  );
}

const deliveriesKey = (endpointId: string) => [...webhooksKey, endpointId, 'deliveries'];

/** An event just sent (a test) or sent again (a redelivery), until its new attempt is logged. */
interface FollowedEvent {
  what: 'Test event' | 'Redelivery';
  eventId: string;
  /** Attempts at or before this instant (the server's clock) are older ones. */
  after: string;
}

/**
 * Polls the endpoint's newest deliveries until the followed event's next attempt is logged,
 * then says how it went and refreshes the table. A disabled endpoint keeps it queued.
 */
function FollowedDelivery({
  endpointId,
  followed,
  enabled,
  onView,
}: {
  endpointId: string;
  followed: FollowedEvent;
  enabled: boolean;
  onView: (delivery: WebhookDelivery) => void;
}) {
  const queryClient = useQueryClient();
  const delivery = useQuery({
    queryKey: [...webhooksKey, endpointId, 'followed delivery', followed],
    queryFn: async ({ signal }) => {
      const page = await webhooksApi.deliveries(
        endpointId,
        { page: 1, limit: 20, sorting: [] },
        signal,
      );
      const found = page.items.find(
        (item) =>
          item.webhook_event.id === followed.eventId &&
          Date.parse(item.created_at) > Date.parse(followed.after),
      );
      return found ?? null;
    },
    refetchInterval: (query) => (query.state.data || !enabled ? false : 1_000),
  });
  const found = delivery.data;
  // The table then shows the new attempt too.
  useEffect(() => {
    if (found) void queryClient.invalidateQueries({ queryKey: deliveriesKey(endpointId) });
  }, [found, queryClient, endpointId]);
  return (
    <div className="webhook-notice" role="status">
      {!found && !enabled && `${followed.what} queued: it is sent once the endpoint is enabled.`}
      {!found && enabled && `${followed.what} sent, waiting for its delivery…`}
      {found && (
        <>
          {followed.what} delivered: {found.succeeded ? 'succeeded' : 'failed'}
          {found.http_code !== null && ` (HTTP ${found.http_code})`}.{' '}
          <button type="button" className="button" onClick={() => onView(found)}>
            Payload and response
          </button>
        </>
      )}
    </div>
  );
}
