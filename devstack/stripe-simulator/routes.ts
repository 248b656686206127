import { routeConfirmationTokens } from './confirmation-tokens.ts';
import { type Confirm, cancelIntent, confirmIntent, type IntentObject, shown } from './intents.ts';
import { confirmPayment, createPaymentIntent, listPaymentIntents } from './payment-intents.ts';
import { routePaymentMethods } from './payment-methods.ts';
import { routeRefund } from './refunds.ts';
import { confirmSetup, createSetupIntent } from './setup-intents.ts';
import { forward, type SimulatorState } from './state.ts';
import { routeTax } from './tax.ts';
import type { Answer, Request } from './wire.ts';

/** The stateful calls; everything else is stripe-mock's answer. */
export async function route(state: SimulatorState, request: Request): Promise<Answer> {
  const { method, path } = request;
  if (path.startsWith('/v1/refunds')) return routeRefund(state, request);
  if (path.startsWith('/v1/tax/'))
    return (await routeTax(state, request)) ?? forward(state, request);
  const saved =
    (await routePaymentMethods(state, request)) ?? (await routeConfirmationTokens(state, request));
  if (saved) return saved;
  if (method === 'POST' && path === '/v1/payment_intents') {
    return createPaymentIntent(state, request);
  }
  if (method === 'POST' && path === '/v1/setup_intents') return createSetupIntent(state, request);
  if (method === 'GET' && path === '/v1/payment_intents') {
    return listPaymentIntents(state, request);
  }
  return routeKeptIntent(state, request);
}

/** How each kind of intent is confirmed. */
const confirmers: Record<IntentObject, Confirm> = {
  payment_intent: confirmPayment,
  setup_intent: confirmSetup,
};

/** A kept Payment- or SetupIntent: retrieved, confirmed, or canceled here. */
async function routeKeptIntent(state: SimulatorState, request: Request): Promise<Answer> {
  const { method, path } = request;
  const match = /^\/v1\/(payment|setup)_intents\/([^/]+)(\/confirm|\/cancel)?$/.exec(path);
  const kept = match?.[1] === 'setup' ? state.setupIntents : state.paymentIntents;
  const intent = match?.[2] ? kept.get(match[2]) : undefined;
  if (!match || !intent) return forward(state, request);
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  if (method === 'GET' && !match[3]) return { status: 200, body: shown(state, intent, request) };
  if (method === 'POST' && match[3] === '/confirm') {
    return confirmIntent(state, intent, request, confirmers[intent.object as IntentObject]);
  }
  if (method === 'POST' && match[3] === '/cancel') return cancelIntent(state, intent, request);
  return forward(state, request);
}
