import type { Config } from '../../config/env.ts';
import type { WebhookDeliverySettings } from '../../domain/webhooks.ts';

export const webhookTimeoutMs = 10_000;

export function webhookDeliverySettings(config: Config): WebhookDeliverySettings {
  return {
    retryDelaysMs: config.webhooks.retryDelaysSeconds.map((seconds) => seconds * 1000),
    timeoutMs: webhookTimeoutMs,
    guardAddresses: config.env === 'production',
    dashboardUrl: config.api.publicUrl,
  };
}

/**
 * The wait before the next attempt after `consecutiveFailures` failed ones, with ±20% jitter so
 * endpoints failing together do not retry together; null once the endpoint should be disabled.
 */
export function retryDelayMs(
  settings: Pick<WebhookDeliverySettings, 'retryDelaysMs'>,
  consecutiveFailures: number,
  random: () => number = Math.random,
): number | null {
  const base = settings.retryDelaysMs[consecutiveFailures - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}
