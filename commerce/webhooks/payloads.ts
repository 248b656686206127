import type { WebhookFormat } from '../../db/entities/webhook.ts';

/** What a chat message says of an event: its type and the resource's name or id. */
function summary(type: string, data: Record<string, unknown>): string {
  const name = [data.name, data.email, data.id].find((value) => typeof value === 'string');
  return name ? `${type}: ${name}` : type;
}

/**
 * The body sent for an event, fixed when it is queued. `raw` is Polar's `{type, timestamp,
 * data}` with `data` the /v1 resource; `discord` and `slack` are a one-line chat message for
 * those services' incoming webhooks (cheap: no per-type layouts), signed all the same.
 */
export function webhookBody(
  format: WebhookFormat,
  type: string,
  timestamp: string,
  data: Record<string, unknown>,
): string {
  if (format === 'discord') return JSON.stringify({ content: `Tollgate ${summary(type, data)}` });
  if (format === 'slack') return JSON.stringify({ text: `Tollgate ${summary(type, data)}` });
  return JSON.stringify({ type, timestamp, data });
}
