import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DateTime } from '../../components/DateTime';
import { Details } from '../../components/EntityPage';
import type { WebhookDelivery } from './api';

/** The payload as sent, laid out when it is JSON (every format is). */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * One delivery attempt: the event's payload as it was signed and sent, and what the endpoint
 * answered; writers may send the event again from here.
 */
export function WebhookDeliveryDialog({
  delivery,
  canRedeliver,
  onRedeliver,
  onClose,
}: {
  delivery: WebhookDelivery | null;
  canRedeliver: boolean;
  onRedeliver: (delivery: WebhookDelivery) => Promise<unknown>;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      open={delivery !== null}
      title={delivery ? `Delivery of ${delivery.webhook_event.type}` : 'Delivery'}
      confirmLabel="Redeliver"
      onConfirm={delivery && canRedeliver ? () => onRedeliver(delivery) : undefined}
      onClose={onClose}
    >
      {delivery && (
        <div>
          <Details
            items={[
              ['Event', delivery.webhook_event.id],
              ['Sent', <DateTime key="sent" value={delivery.created_at} />],
              ['Attempt', String(delivery.attempt)],
              [
                'Result',
                `${delivery.succeeded ? 'succeeded' : 'failed'}${
                  delivery.http_code === null ? '' : ` (HTTP ${delivery.http_code})`
                }${delivery.error ? `: ${delivery.error}` : ''}`,
              ],
            ]}
          />
          <figure className="webhook-body">
            <figcaption>Payload</figcaption>
            <pre>{pretty(delivery.webhook_event.payload)}</pre>
          </figure>
          <figure className="webhook-body">
            <figcaption>Response</figcaption>
            <pre>{delivery.response ?? '(no answer)'}</pre>
          </figure>
        </div>
      )}
    </ConfirmDialog>
  );
}
