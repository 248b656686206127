import type { Config } from '../../config/env.ts';

/**
 * How deliveries are made, decided by the process that queues them (the relay) and carried in
 * the endpoint workflow's input, so a test can shorten the schedule without touching the clock.
 */
export interface WebhookDeliverySettings {
  /**
   * The wait after each consecutive failed attempt, before the next one (each ±20% at random).
   * One more failure than it has entries disables the endpoint. The default, from
   * TOLLGATE_WEBHOOK_RETRY_DELAYS: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h —
   * ten attempts over about 2.9 days, so an endpoint down for a weekend still gets everything.
   */
  retryDelaysMs: number[];
  /** An attempt without a complete answer head by then fails. */
  timeoutMs: number;
  /** Refuse URLs whose host resolves to an internal address (on in production: SSRF). */
  guardAddresses: boolean;
  /** The dashboard, linked from the mail telling owners an endpoint was disabled. */
  dashboardUrl: string;
}

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
