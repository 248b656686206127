import { randomBytes } from 'node:crypto';
import { testCardOfToken } from './confirmation-tokens.ts';
import { recordEvent } from './events.ts';
import { paymentMethod } from './payment-methods.ts';
import type { SimulatorState } from './state.ts';
import type { Decline } from './test-cards.ts';
import { type Answer, type Json, now, type Request, stripeError, stripeId } from './wire.ts';

// What PaymentIntents and SetupIntents share: they are made, confirmed and answered alike.

/** The intents the simulator keeps, by their `object`: confirmed alike, each with its own words. */
export type IntentObject = 'payment_intent' | 'setup_intent';
const intentWords: Record<IntentObject, { name: string; lastError: string; failed: string }> = {
  payment_intent: {
    name: 'PaymentIntent',
    lastError: 'last_payment_error',
    failed: 'payment_intent.payment_failed',
  },
  setup_intent: {
    name: 'SetupIntent',
    lastError: 'last_setup_error',
    failed: 'setup_intent.setup_failed',
  },
};

/** The payment method an intent is confirmed with: its id, and the method as Stripe shows it. */
export interface ChosenMethod {
  id: string;
  method: Json;
}

/**
 * Confirms an intent of one kind with its chosen payment method: its answer, the intent
 * changed in place.
 */
export type Confirm = (
  state: SimulatorState,
  intent: Json,
  request: Request,
  chosen: ChosenMethod,
) => Answer;

/** `automatic_payment_methods` as the intent shows it. */
export function automaticPaymentMethods(form: Json): Json | null {
  const automatic = form.automatic_payment_methods as Json | undefined;
  return automatic
    ? { enabled: automatic.enabled === 'true', allow_redirects: automatic.allow_redirects }
    : null;
}

export const clientSecret = (id: string) => `${id}_secret_${randomBytes(12).toString('base64url')}`;

/** A new intent's status: it waits for a confirmation once it has something to pay with. */
export const unconfirmedStatus = (form: Json) =>
  form.payment_method || form.confirmation_token
    ? 'requires_confirmation'
    : 'requires_payment_method';

/** A Payment- or SetupIntent as answered: `expand[]=payment_method` embeds the payment method. */
export function shown(state: SimulatorState, intent: Json, request: Request): Json {
  const expand = [request.form.expand, request.query.expand].flat();
  const methodId = intent.payment_method;
  if (expand.includes('payment_method') && typeof methodId === 'string') {
    return { ...intent, payment_method: state.paymentMethods.get(methodId) ?? methodId };
  }
  return intent;
}

/** A new intent's answer: confirmed at once on `confirm=true`, else shown as it is. */
export async function answerCreated(
  state: SimulatorState,
  intent: Json,
  request: Request,
  confirm: Confirm,
): Promise<Answer> {
  if (request.form.confirm !== 'true') return { status: 200, body: shown(state, intent, request) };
  return confirmIntent(state, intent, request, confirm);
}

/** Confirms an intent as its kind does, or refuses to; a success shows it as asked (expansions). */
export async function confirmIntent(
  state: SimulatorState,
  intent: Json,
  request: Request,
  confirm: Confirm,
): Promise<Answer> {
  const chosen = await methodToConfirm(state, intent, request);
  if ('status' in chosen) return chosen;
  const answer = confirm(state, intent, request, chosen);
  return answer.status === 200 ? { ...answer, body: shown(state, intent, request) } : answer;
}

/**
 * The payment method an intent is confirmed with (the one passed, a new one made of a
 * confirmation token, or the intent's own), or Stripe's refusal to confirm it.
 */
async function methodToConfirm(
  state: SimulatorState,
  intent: Json,
  request: Request,
): Promise<ChosenMethod | Answer> {
  const object = intent.object as IntentObject;
  const { name } = intentWords[object];
  if (intent.status === 'succeeded' || intent.status === 'canceled') {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: `${object}_unexpected_state`,
      message: `You cannot confirm this ${name} because it has a status of ${intent.status}.`,
      [object]: intent,
    });
  }
  const { form } = request;
  const methodId =
    (typeof form.payment_method === 'string' && form.payment_method) ||
    (typeof form.confirmation_token === 'string' &&
      (testCardOfToken(state, form.confirmation_token) ?? stripeId('pm'))) ||
    (typeof intent.payment_method === 'string' ? intent.payment_method : null);
  if (!methodId) {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: `${object}_unexpected_state`,
      message:
        `You cannot confirm this ${name} because it's missing a payment method. ` +
        `To confirm the ${name} with a payment method, pass \`payment_method\`.`,
    });
  }
  return { id: methodId, method: await paymentMethod(state, request, methodId) };
}

/** A 200 with the intent, and the event of its new state. */
export const withEvent = (
  state: SimulatorState,
  intent: Json,
  type: string,
  request: Request,
): Answer => ({
  status: 200,
  body: intent,
  events: [recordEvent(state, type, intent, request)],
});

/**
 * The intent waits for its card holder's 3-D Secure step. As Stripe's, `use_stripe_sdk.stripe_js`
 * is the address of the challenge: here the simulator's own page (see challengePage), on the
 * host the call came to.
 */
export function awaitingAuthentication(
  state: SimulatorState,
  intent: Json,
  request: Request,
): Answer {
  intent.status = 'requires_action';
  const host = request.headers.host ?? '127.0.0.1';
  intent.next_action = {
    type: 'use_stripe_sdk',
    use_stripe_sdk: {
      type: 'three_d_secure_redirect',
      source: stripeId('src'),
      stripe_js: `http://${host}/_simulator/3ds/${intent.id}`,
    },
  };
  return withEvent(state, intent, `${intent.object}.requires_action`, request);
}

/** The card holder passed (or failed) the 3-D Secure step a `requires_action` SetupIntent awaits. */
export function setupAuthenticated(
  state: SimulatorState,
  intent: Json,
  succeeded: boolean,
  request: Request,
): Answer {
  intent.next_action = null;
  if (succeeded) {
    intent.status = 'succeeded';
    return withEvent(state, intent, 'setup_intent.succeeded', request);
  }
  intent.status = 'requires_payment_method';
  intent.last_setup_error = {
    type: 'invalid_request_error',
    code: 'setup_intent_authentication_failure',
    message:
      'The latest attempt to set up the payment method has failed because authentication failed.',
    payment_method: state.paymentMethods.get(String(intent.payment_method)) ?? null,
  };
  intent.payment_method = null;
  return withEvent(state, intent, 'setup_intent.setup_failed', request);
}

/** The card_error of a declined confirmation (a PaymentIntent's or a SetupIntent's). */
export const cardError = (decline: Decline, method: Json): Json => ({
  type: 'card_error',
  code: decline.code,
  ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
  message: decline.message,
  doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
  payment_method: method,
});

/**
 * The intent declined (back to requires_payment_method, `lastError` kept), answered with the
 * 402 card_error that carries it, and its failure event.
 */
export function cardDeclined(
  state: SimulatorState,
  intent: Json,
  lastError: Json,
  request: Request,
): Answer {
  const object = intent.object as IntentObject;
  intent.status = 'requires_payment_method';
  intent.payment_method = null;
  intent[intentWords[object].lastError] = lastError;
  return {
    status: 402,
    body: {
      error: {
        ...lastError,
        [object]: intent,
        request_log_url: `https://dashboard.stripe.com/test/logs/${request.requestId}`,
      },
    },
    events: [recordEvent(state, intentWords[object].failed, intent, request)],
  };
}

/** Cancels a Payment- or SetupIntent not settled yet, with its `.canceled` event. */
export function cancelIntent(state: SimulatorState, intent: Json, request: Request): Answer {
  const object = intent.object as IntentObject;
  if (intent.status === 'succeeded' || intent.status === 'canceled') {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: `${object}_unexpected_state`,
      message: `You cannot cancel this ${intentWords[object].name} because it has a status of ${intent.status}.`,
    });
  }
  intent.status = 'canceled';
  intent.next_action = null;
  if (object === 'payment_intent') intent.canceled_at = now();
  intent.cancellation_reason = request.form.cancellation_reason ?? null;
  return withEvent(state, intent, `${object}.canceled`, request);
}
