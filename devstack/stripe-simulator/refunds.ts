import { deliverAll, recordEvent } from './events.ts';
import { forward, type SimulatorState } from './state.ts';
import { refundFailingCards } from './test-cards.ts';
import { type Answer, type Json, now, type Request, stripeError, stripeId } from './wire.ts';

/** How long a refund stays `pending` before it succeeds or fails, with its events. */
const refundSettleMs = 300;

/** Refunds: create and retrieve are kept here; other calls on them are stripe-mock's. */
export async function routeRefund(state: SimulatorState, request: Request): Promise<Answer> {
  const { method, path } = request;
  if (method === 'POST' && path === '/v1/refunds') return createRefund(state, request);
  const id = /^\/v1\/refunds\/([^/]+)$/.exec(path)?.[1];
  const refund = id ? state.refunds.get(id) : undefined;
  if (method === 'GET' && refund) return { status: 200, body: refund };
  return forward(state, request);
}

/** What the refunds of a PaymentIntent give back or will: pending and succeeded ones. */
const refundedOf = (state: SimulatorState, intentId: unknown) =>
  [...state.refunds.values()]
    .filter(
      (refund) =>
        refund.payment_intent === intentId &&
        (refund.status === 'pending' || refund.status === 'succeeded'),
    )
    .reduce((sum, refund) => sum + Number(refund.amount), 0);

/**
 * A refund of a succeeded PaymentIntent, of at most what it has not refunded yet (the whole of
 * it by default): answered `pending`, it succeeds (or, paid with a card whose refunds fail,
 * fails) a moment later, with its events.
 */
async function createRefund(state: SimulatorState, request: Request): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const { form } = request;
  const refundable = refundableOf(state, form);
  if ('status' in refundable) return refundable;
  const { intent, amount } = refundable;
  const refund: Json = {
    ...checked.body,
    id: stripeId('re'),
    object: 'refund',
    amount,
    charge: intent.latest_charge,
    created: now(),
    currency: intent.currency,
    failure_reason: null,
    metadata: form.metadata ?? {},
    payment_intent: intent.id,
    reason: form.reason ?? null,
    status: 'pending',
  };
  state.refunds.set(String(refund.id), refund);
  setTimeout(() => settleRefund(state, refund, intent, request), refundSettleMs).unref();
  return {
    status: 200,
    body: refund,
    events: [recordEvent(state, 'refund.created', refund, request)],
  };
}

/** The PaymentIntent a refund asks for and the amount it gives back, or Stripe's refusal. */
function refundableOf(
  state: SimulatorState,
  form: Json,
): { intent: Json; amount: number } | Answer {
  const intent = state.paymentIntents.get(String(form.payment_intent));
  if (!intent) {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param: 'payment_intent',
      message: `No such payment_intent: '${String(form.payment_intent)}'`,
    });
  }
  if (intent.status !== 'succeeded') {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: 'This PaymentIntent does not have a successful charge to refund.',
    });
  }
  const left = Number(intent.amount_received) - refundedOf(state, intent.id);
  if (left <= 0) {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'charge_already_refunded',
      message: `Charge ${String(intent.latest_charge)} has already been refunded.`,
    });
  }
  const amount = form.amount === undefined ? left : Number(form.amount);
  if (amount > left) {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'amount_too_large',
      param: 'amount',
      message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
    });
  }
  return { intent, amount };
}

/** A pending refund's outcome, sent as Stripe does: refund.updated, then its charge's news. */
function settleRefund(state: SimulatorState, refund: Json, intent: Json, request: Request) {
  if (state.stopped || refund.status !== 'pending') return;
  const fails = refundFailingCards.has(String(intent.payment_method));
  refund.status = fails ? 'failed' : 'succeeded';
  if (fails) refund.failure_reason = 'expired_or_canceled_card';
  const refunded = refundedOf(state, intent.id);
  const charge = {
    id: intent.latest_charge,
    object: 'charge',
    amount: intent.amount_received,
    amount_captured: intent.amount_received,
    amount_refunded: refunded,
    currency: intent.currency,
    metadata: intent.metadata,
    payment_intent: intent.id,
    refunded: refunded >= Number(intent.amount_received),
    status: 'succeeded',
  };
  deliverAll(state, [
    recordEvent(state, 'refund.updated', refund, request),
    fails
      ? recordEvent(state, 'refund.failed', refund, request)
      : recordEvent(state, 'charge.refunded', charge, request),
  ]);
}
