import { forward, type SavedCard, type SimulatorState } from './state.ts';
import { cardOf } from './test-cards.ts';
import { type Answer, type Json, now, type Request, stripeError } from './wire.ts';

/** A card payment method as stripe-mock shapes it, with the test card's brand and digits. */
export async function paymentMethod(
  state: SimulatorState,
  request: Request,
  id: string,
): Promise<Json> {
  const known = state.paymentMethods.get(id);
  if (known) return known;
  const card = cardOf(id);
  state.paymentMethodFixture ??= forward(state, {
    ...request,
    method: 'GET',
    path: '/v1/payment_methods/pm_card_visa',
    search: '',
  });
  const fixture = (await state.paymentMethodFixture).body;
  const fixtureCard = (fixture.card ?? {}) as Json;
  const method = {
    ...fixture,
    id,
    created: now(),
    customer: null,
    metadata: {},
    card: {
      ...fixtureCard,
      brand: card.brand,
      display_brand: card.brand,
      last4: card.last4,
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      wallet: null,
    },
  };
  state.paymentMethods.set(id, method);
  return method;
}

// Saved cards. A test card id (`pm_card_visa`) is one payment method here, not a new one per use
// as at Stripe (its outcome is read from its id): each customer holds it on its own (with its
// own expiry, when a test set one), and detaching it takes it from every customer that holds it.

/** The customer's saved cards, by id (newest attached last). */
const cardsOf = (state: SimulatorState, customer: string) => {
  let cards = state.customerCards.get(customer);
  if (!cards) {
    cards = new Map();
    state.customerCards.set(customer, cards);
  }
  return cards;
};

function attach(state: SimulatorState, customer: string, methodId: string) {
  const cards = cardsOf(state, customer);
  const kept = cards.get(methodId);
  cards.delete(methodId);
  cards.set(methodId, { ...kept, attachedAt: now() });
}

/**
 * The control API's expiry of a saved card (cards are issued running three years): from now on
 * the customer's card reads as expiring at the end of `exp_month`/`exp_year`. False when the
 * customer holds no such card.
 */
export function setSavedCardExpiry(
  state: SimulatorState,
  customer: string,
  methodId: string,
  expiry: SavedCard['expiry'],
): boolean {
  const card = state.customerCards.get(customer)?.get(methodId);
  if (!card) return false;
  card.expiry = expiry;
  return true;
}

/**
 * As at Stripe, an intent that saves its card attaches it to the intent's customer when it
 * succeeds: a SetupIntent, or a PaymentIntent with `setup_future_usage`. Told of every event.
 */
export function attachSavedCard(state: SimulatorState, type: string, intent: Json): void {
  const saves =
    type === 'setup_intent.succeeded' ||
    (type === 'payment_intent.succeeded' && Boolean(intent.setup_future_usage));
  const { customer, payment_method: methodId } = intent;
  if (saves && typeof customer === 'string' && typeof methodId === 'string') {
    attach(state, customer, methodId);
  }
}

/** The payment method as its customer sees it: theirs, with the expiry of their card. */
function heldBy(state: SimulatorState, method: Json, customer: string | null): Json {
  const expiry = customer
    ? state.customerCards.get(customer)?.get(String(method.id))?.expiry
    : null;
  return expiry
    ? { ...method, customer, card: { ...(method.card as Json), ...expiry } }
    : { ...method, customer };
}

const noSuchMethod = (id: string) =>
  stripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param: 'payment_method',
    message: `No such PaymentMethod: '${id}'`,
  });

/**
 * The payment method calls that need the saved cards: a customer's list (`/v1/customers/:id/
 * payment_methods` or `/v1/payment_methods?customer=`), one of them, attach and detach; null
 * for the others (stripe-mock answers those). stripe-mock checks each call's parameters first.
 */
export async function routePaymentMethods(
  state: SimulatorState,
  request: Request,
): Promise<Answer | null> {
  const { method, path } = request;
  const ofCustomer = /^\/v1\/customers\/([^/]+)\/payment_methods(?:\/([^/]+))?$/.exec(path);
  const action = /^\/v1\/payment_methods\/([^/]+)\/(attach|detach)$/.exec(path);
  const listed = path === '/v1/payment_methods' && method === 'GET';
  if (!ofCustomer && !action && !listed) return null;
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  if (ofCustomer?.[1] && method === 'GET') {
    const [, customer, methodId] = ofCustomer;
    if (!methodId) return listOf(state, customer, path);
    if (!cardsOf(state, customer).has(methodId)) return noSuchMethod(methodId);
    return {
      status: 200,
      body: heldBy(state, await paymentMethod(state, request, methodId), customer),
    };
  }
  if (listed && typeof request.query.customer === 'string') {
    return listOf(state, request.query.customer, path);
  }
  if (action?.[1] && method === 'POST') {
    const [, methodId, verb] = action;
    const shown = await paymentMethod(state, request, methodId);
    if (verb === 'attach') {
      const customer = String(request.form.customer);
      attach(state, customer, methodId);
      return { status: 200, body: heldBy(state, shown, customer) };
    }
    const holders = [...state.customerCards.values()].filter((cards) => cards.delete(methodId));
    if (holders.length === 0) {
      return stripeError(400, {
        type: 'invalid_request_error',
        message:
          'The payment method you provided is not attached to a customer so detachment is impossible.',
      });
    }
    return { status: 200, body: heldBy(state, shown, null) };
  }
  return checked;
}

/** A customer's saved cards, newest attached first, as Stripe lists them. */
function listOf(state: SimulatorState, customer: string, url: string): Answer {
  const data = [...cardsOf(state, customer).keys()]
    .reverse()
    .map((id) => state.paymentMethods.get(id))
    .filter((method): method is Json => method !== undefined)
    .map((method) => heldBy(state, method, customer));
  return { status: 200, body: { object: 'list', url, has_more: false, data } };
}
