import * as intents from './intents.ts';
import { forward, type SimulatorState } from './state.ts';
import { cardOf } from './test-cards.ts';
import { type Answer, type Json, now, type Request, stripeId } from './wire.ts';

/** A SetupIntent on stripe-mock's fixture, with its own id and state (confirmed at once on `confirm=true`). */
export async function createSetupIntent(state: SimulatorState, request: Request): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const { form } = request;
  const id = stripeId('seti');
  const intent: Json = {
    ...checked.body,
    id,
    automatic_payment_methods: intents.automaticPaymentMethods(form),
    client_secret: intents.clientSecret(id),
    created: now(),
    customer: form.customer ?? null,
    description: form.description ?? null,
    last_setup_error: null,
    latest_attempt: null,
    metadata: form.metadata ?? {},
    next_action: null,
    payment_method: typeof form.payment_method === 'string' ? form.payment_method : null,
    status: intents.unconfirmedStatus(form),
    usage: form.usage ?? 'off_session',
  };
  state.setupIntents.set(id, intent);
  return intents.answerCreated(state, intent, request, confirmSetup);
}

/**
 * Saves a card for later (a trial's): the test card decides as for a charge, except that a
 * card which `attaches` is saved, and an off-session charge never follows in the same call.
 */
export const confirmSetup: intents.Confirm = (state, intent, request, { id: methodId, method }) => {
  const card = cardOf(methodId);
  intent.payment_method = methodId;
  intent.last_setup_error = null;
  intent.next_action = null;
  if (card.outcome === 'succeeded' || (card.outcome === 'declined' && card.attaches)) {
    intent.status = 'succeeded';
    return intents.withEvent(state, intent, 'setup_intent.succeeded', request);
  }
  if (card.outcome === 'requires_action') {
    return intents.awaitingAuthentication(state, intent, request);
  }
  return intents.cardDeclined(state, intent, intents.cardError(card, method), request);
};
