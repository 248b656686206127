import * as intents from './intents.ts';
import { forward, type SimulatorState } from './state.ts';
import { cardOf, declined } from './test-cards.ts';
import { type Answer, type Json, now, type Request, stripeId } from './wire.ts';

/** A card confirmation: POST /v1/payment_intents with confirm=true, or …/confirm. */
export const isPaymentConfirmation = (request: Request) =>
  request.method === 'POST' &&
  ((request.path === '/v1/payment_intents' && request.form.confirm === 'true') ||
    /^\/v1\/payment_intents\/[^/]+\/confirm$/.test(request.path));

export async function createPaymentIntent(
  state: SimulatorState,
  request: Request,
): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const { form } = request;
  const id = stripeId('pi');
  const intent: Json = {
    id,
    object: 'payment_intent',
    amount: Number(form.amount),
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: intents.automaticPaymentMethods(form),
    canceled_at: null,
    cancellation_reason: null,
    capture_method: form.capture_method ?? 'automatic_async',
    client_secret: intents.clientSecret(id),
    confirmation_method: form.confirmation_method ?? 'automatic',
    created: now(),
    currency: form.currency,
    customer: form.customer ?? null,
    description: form.description ?? null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: form.metadata ?? {},
    next_action: null,
    on_behalf_of: null,
    payment_method: typeof form.payment_method === 'string' ? form.payment_method : null,
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    processing: null,
    receipt_email: form.receipt_email ?? null,
    review: null,
    setup_future_usage: form.setup_future_usage ?? null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: intents.unconfirmedStatus(form),
    transfer_data: null,
    transfer_group: null,
  };
  state.paymentIntents.set(id, intent);
  // Only the outcome events are sent (not payment_intent.created): what the product acts on.
  return intents.answerCreated(state, intent, request, confirmPayment);
}

/** Charges the card: the test card (or a `decline` fault) decides how it ends. */
export const confirmPayment: intents.Confirm = (
  state,
  intent,
  request,
  { id: methodId, method },
) => {
  const { form } = request;
  const card = request.forcedDecline ?? cardOf(methodId);
  const offSession = form.off_session === 'true';
  if (form.setup_future_usage) intent.setup_future_usage = form.setup_future_usage;
  intent.payment_method = methodId;
  intent.latest_charge = card.outcome === 'requires_action' ? null : stripeId('ch');
  intent.last_payment_error = null;
  intent.next_action = null;
  if (card.outcome === 'succeeded') return paid(state, intent, request);
  if (card.outcome === 'requires_action' && !offSession) {
    return intents.awaitingAuthentication(state, intent, request);
  }
  // Declined, or an off-session charge of a card that needs its holder: a 402 card_error.
  const decline =
    card.outcome === 'declined'
      ? card
      : declined(
          card.last4,
          'authentication_required',
          'authentication_required',
          'Your card was declined. This transaction requires authentication.',
        );
  const lastError = { ...intents.cardError(decline, method), charge: intent.latest_charge };
  return intents.cardDeclined(state, intent, lastError, request);
};

function paid(state: SimulatorState, intent: Json, request: Request): Answer {
  intent.status = 'succeeded';
  intent.amount_received = intent.amount;
  return intents.withEvent(state, intent, 'payment_intent.succeeded', request);
}

/** The buyer passed (or failed) the 3-D Secure step a `requires_action` PaymentIntent awaits. */
export function authenticated(
  state: SimulatorState,
  intent: Json,
  succeeded: boolean,
  request: Request,
): Answer {
  intent.next_action = null;
  intent.latest_charge = stripeId('ch');
  if (succeeded) return paid(state, intent, request);
  intent.status = 'requires_payment_method';
  intent.last_payment_error = {
    type: 'invalid_request_error',
    code: 'payment_intent_authentication_failure',
    message:
      'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
    payment_method: state.paymentMethods.get(String(intent.payment_method)) ?? null,
  };
  intent.payment_method = null;
  return intents.withEvent(state, intent, 'payment_intent.payment_failed', request);
}

/**
 * GET /v1/payment_intents: the kept ones, newest first, of a customer when asked, created within
 * `created[gt|gte|lt|lte]` when given, a page after `starting_after` (as the SDK's paging asks).
 */
export function listPaymentIntents(state: SimulatorState, request: Request): Answer {
  const { customer, starting_after: after } = request.query;
  const created = (request.query.created ?? {}) as Record<string, string | undefined>;
  const within = (at: number) =>
    (created.gt === undefined || at > Number(created.gt)) &&
    (created.gte === undefined || at >= Number(created.gte)) &&
    (created.lt === undefined || at < Number(created.lt)) &&
    (created.lte === undefined || at <= Number(created.lte));
  const limit = Number(request.query.limit ?? 10);
  const newestFirst = [...state.paymentIntents.values()].reverse();
  const start =
    after === undefined ? 0 : newestFirst.findIndex((intent) => intent.id === after) + 1;
  const data = newestFirst
    .slice(start)
    .filter((intent) => customer === undefined || intent.customer === customer)
    .filter((intent) => within(Number(intent.created)));
  return {
    status: 200,
    body: {
      object: 'list',
      url: '/v1/payment_intents',
      has_more: data.length > limit,
      data: data.slice(0, limit).map((intent) => intents.shown(state, intent, request)),
    },
  };
}
