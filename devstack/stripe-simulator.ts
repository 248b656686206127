import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { control } from './stripe-simulator/control.ts';
import { deliverUnder, takeFaults } from './stripe-simulator/faults.ts';
import { answerOnce } from './stripe-simulator/idempotency.ts';
import {
  newSimulatorState,
  type SimulatorOptions,
  type SimulatorState,
} from './stripe-simulator/state.ts';
import { declined } from './stripe-simulator/test-cards.ts';
import { readRequest, sendAnswer, stripeError } from './stripe-simulator/wire.ts';

export {
  type StripeChaos,
  type StripeFault,
  type StripeFaultCounts,
  type StripeSimulatorControl,
  stripeSimulatorControl,
} from './stripe-simulator/control-client.ts';
export { stripeSignature } from './stripe-simulator/events.ts';
export { parseStripeForm } from './stripe-simulator/wire.ts';

/**
 * Development and test stand-in for Stripe's payment side, never in the product's payment
 * path: the product's STRIPE_API_BASE points here, and every call goes on to stripe-mock
 * (which validates parameters and answers fixtures). stripe-mock is stateless, so this proxy
 * keeps what it cannot: PaymentIntents and SetupIntents with unique ids whose outcome follows
 * Stripe's documented test payment methods, refunds that settle a moment after they are asked for,
 * answers replayed per Idempotency-Key, and the Stripe events that follow, signed with the shared webhook secret and delivered to the registered
 * webhook endpoints. Under `/_simulator/` a control API registers those endpoints, injects
 * faults (armed one by one, or drawn at random: `setChaos`) and sets saved cards' expiry for
 * tests (see `stripeSimulatorControl`).
 *
 * This file is the HTTP server; stripe-simulator/ holds the rest: routes.ts dispatches the
 * stateful calls to payment-intents.ts, setup-intents.ts (their shared steps in intents.ts),
 * refunds.ts, payment-methods.ts (customers' saved cards), confirmation-tokens.ts and tax.ts
 * (Stripe Tax calculations and transactions, from a table of its own); events.ts
 * signs and delivers webhooks; idempotency.ts and faults.ts wrap every
 * call; control.ts and control-client.ts are the two ends of the control API.
 */
export interface StripeSimulator {
  /** STRIPE_API_BASE for the product; the control API lives under `<url>/_simulator/`. */
  url: string;
  stop(): Promise<void>;
}

export async function startStripeSimulator(options: SimulatorOptions): Promise<StripeSimulator> {
  const state = newSimulatorState(options);
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    handle(state, incoming, response).catch((error: unknown) => {
      state.log(`${incoming.method} ${incoming.url}: ${String(error)}`);
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      state.stopped = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One call: the control API's, or Stripe's under any fault it matches, once per key. */
async function handle(
  state: SimulatorState,
  incoming: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const request = await readRequest(incoming);
  if (request.path.startsWith('/_simulator/')) {
    sendAnswer(response, request, await control(state, request));
    return;
  }
  const { call: fault, webhook } = takeFaults(state, request);
  if (fault?.mode === 'hang') return;
  if (fault?.mode === 'error') {
    const failure = stripeError(500, { type: 'api_error', message: 'Simulated Stripe failure.' });
    sendAnswer(response, request, failure);
    return;
  }
  if (fault?.mode === 'drop') {
    await sleep(fault.delayMs);
    response.destroy();
    return;
  }
  if (fault?.mode === 'slow') await sleep(fault.delayMs);
  if (fault?.mode === 'decline') {
    request.forcedDecline = declined('0000', 'card_declined', fault.declineCode, fault.message);
  }
  const { answer, replayed } = answerOnce(state, request);
  const result = await answer;
  const events = replayed ? [] : (result.events ?? []);
  if (fault?.mode === 'lost') {
    void deliverUnder(state, events, webhook);
    await sleep(fault.delayMs);
    response.destroy();
    return;
  }
  const key = request.headers['idempotency-key'];
  sendAnswer(response, request, result, {
    ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    ...(typeof key === 'string' ? { 'idempotency-key': key } : {}),
  });
  // As Stripe does, the operation's events go out once it has answered.
  void deliverUnder(state, events, webhook);
}
