import { type Supervisor, waitUntilReady } from './supervisor.ts';

/** Answers true once stripe-mock serves a Stripe API call. */
export async function stripeAnswers(apiBase: string, secretKey: string): Promise<boolean> {
  const response = await fetch(new URL('/v1/customers?limit=1', apiBase), {
    headers: { authorization: `Bearer ${secretKey}` },
    signal: AbortSignal.timeout(2000),
  });
  return response.ok;
}

/** Runs stripe-mock (Stripe's own API mock) over plain HTTP and answers its base URL. */
export async function startStripeMock(
  supervisor: Supervisor,
  options: { binary: string; port: number; secretKey: string; logFile: string },
): Promise<string> {
  supervisor.spawn({
    name: 'stripe-mock',
    command: options.binary,
    // stripe-mock always serves HTTPS too; an empty port lets the system pick an unused one.
    args: ['-http-addr', `127.0.0.1:${options.port}`, '-https-addr', '127.0.0.1:'],
    logFile: options.logFile,
  });
  const apiBase = `http://127.0.0.1:${options.port}`;
  await waitUntilReady('stripe-mock', () => stripeAnswers(apiBase, options.secretKey));
  return apiBase;
}
