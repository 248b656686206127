import Stripe from 'stripe';

/**
 * The Stripe SDK pointed at `apiBase`: Stripe itself in production, stripe-mock in
 * development and tests. Only the base URL changes; every call is the real SDK's.
 */
export function createStripeClient({ secretKey, apiBase }: { secretKey: string; apiBase: string }) {
  const base = new URL(apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
}

export type StripeClient = ReturnType<typeof createStripeClient>;
