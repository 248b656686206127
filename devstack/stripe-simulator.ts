import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Development and test stand-in for Stripe's payment side, never in the product's payment
 * path: the product's STRIPE_API_BASE points here, and every call goes on to stripe-mock
 * (which validates parameters and answers fixtures). stripe-mock is stateless, so this proxy
 * keeps what it cannot: PaymentIntents and SetupIntents with unique ids whose outcome follows
 * Stripe's documented test payment methods, refunds that settle a moment after they are asked for,
 * answers replayed per Idempotency-Key, and the Stripe events that follow, signed with the shared webhook secret and delivered to the registered
 * webhook endpoints. Under `/_simulator/` a control API registers those endpoints and injects
 * faults for tests (see `stripeSimulatorControl`).
 */
export interface StripeSimulator {
  /** STRIPE_API_BASE for the product; the control API lives under `<url>/_simulator/`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * What happens to the next `count` calls matching `method` (any when unset), a path starting
 * with `path` and, when set, a raw body containing `bodyIncludes` (say, a checkout's id: tests
 * sharing the simulator then never catch each other's calls):
 * - `error`: a 500 api_error, nothing done;
 * - `drop`: the connection closes after `delayMs`, nothing done (the call never reached Stripe);
 * - `lost`: the call is done (stored under its idempotency key, events sent), then the
 *   connection closes after `delayMs` without an answer (Stripe charged; the answer was lost);
 * - `hang`: no answer ever, nothing done (until the client gives up);
 * - `decline`: only PaymentIntent confirmations (a create with `confirm=true`, or `/confirm`)
 *   match; each is declined as a card decline with `declineCode` (and `message`), whatever the
 *   card: a 402 card_error, the PaymentIntent back in requires_payment_method, and the
 *   payment_intent.payment_failed event. A replay of an answered Idempotency-Key is not one.
 *
 * `bodyIncludes` is looked for in the raw body, its URL-decoded form, and the metadata of the
 * PaymentIntent a `/confirm` names: the metadata's `workflow_id` (`subscription:<id>`) matches.
 */
export interface StripeFault {
  path: string;
  method?: string;
  bodyIncludes?: string;
  mode: 'error' | 'drop' | 'lost' | 'hang' | 'decline';
  count?: number;
  delayMs?: number;
  /** `decline`: Stripe's decline code, e.g. `insufficient_funds`, `lost_card`. */
  declineCode?: string;
  /** `decline`: the processor's message; Stripe's generic one when unset. */
  message?: string;
}

/**
 * What a documented test payment method does when a PaymentIntent (or a SetupIntent) is
 * confirmed with it. A declined card fails a setup too, unless it `attaches` (saved, but every
 * charge declined).
 */
type TestCard =
  | { outcome: 'succeeded'; brand: string; last4: string }
  | { outcome: 'requires_action'; brand: string; last4: string }
  | Decline;

interface Decline {
  outcome: 'declined';
  brand: string;
  last4: string;
  code: string;
  declineCode: string | null;
  message: string;
  attaches?: boolean;
}

const declined = (last4: string, code: string, declineCode: string | null, message: string) =>
  ({ outcome: 'declined', brand: 'visa', last4, code, declineCode, message }) as const;

/** https://docs.stripe.com/testing#cards and #declined-payments */
const testCards: Record<string, TestCard> = {
  pm_card_visa: { outcome: 'succeeded', brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { outcome: 'succeeded', brand: 'visa', last4: '5556' },
  pm_card_mastercard: { outcome: 'succeeded', brand: 'mastercard', last4: '4444' },
  pm_card_amex: { outcome: 'succeeded', brand: 'amex', last4: '8431' },
  // Pays; a refund of the payment fails (https://docs.stripe.com/testing#refunds).
  pm_card_refundFail: { outcome: 'succeeded', brand: 'visa', last4: '5126' },
  pm_card_chargeDeclined: declined(
    '0002',
    'card_declined',
    'generic_decline',
    'Your card was declined.',
  ),
  pm_card_chargeDeclinedInsufficientFunds: declined(
    '9995',
    'card_declined',
    'insufficient_funds',
    'Your card has insufficient funds.',
  ),
  pm_card_chargeDeclinedLostCard: declined(
    '9987',
    'card_declined',
    'lost_card',
    'Your card was declined.',
  ),
  pm_card_chargeDeclinedExpiredCard: declined(
    '0069',
    'expired_card',
    null,
    'Your card has expired.',
  ),
  pm_card_chargeDeclinedProcessingError: declined(
    '0119',
    'processing_error',
    null,
    'An error occurred while processing your card. Try again in a little bit.',
  ),
  pm_card_authenticationRequired: { outcome: 'requires_action', brand: 'visa', last4: '3184' },
  // "Attaching this card to a Customer object succeeds, but attempts to charge the customer fail."
  pm_card_chargeCustomerFail: {
    ...declined('0341', 'card_declined', 'generic_decline', 'Your card was declined.'),
    attaches: true,
  },
};

/** The test payment methods whose refunds fail, after a while, as an expired card's do. */
const refundFailingCards = new Set(['pm_card_refundFail']);

/** How long a refund stays `pending` before it succeeds or fails, with its events. */
const refundSettleMs = 300;

/** Any other payment method (one made from a confirmation token, say) pays like Visa 4242. */
const defaultCard = testCards.pm_card_visa as TestCard;

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  body: Json;
  /** Stripe events the call caused, sent once it is answered. */
  events?: StripeEvent[];
}

interface StripeEvent {
  id: string;
  type: string;
  object: Json;
  created: number;
  apiVersion: string | null;
  request: { id: string; idempotency_key: string | null };
}

interface Request {
  method: string;
  path: string;
  search: string;
  query: Json;
  form: Json;
  rawBody: string;
  headers: IncomingMessage['headers'];
  requestId: string;
  /** A `decline` fault this PaymentIntent confirmation answers, whatever its card. */
  forcedDecline?: Decline;
}

const stripeId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding (`metadata[key]=v`, `expand[0]=x`) back into nested values. */
export function parseStripeForm(encoded: string): Json {
  const root: Json = {};
  for (const [name, value] of new URLSearchParams(encoded)) {
    const keys = name.split(/\[|\]\[|\]$/).filter((key, index) => index === 0 || key !== '');
    let node: Json = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node[key] = value;
        return;
      }
      node[key] ??= {};
      node = node[key] as Json;
    });
  }
  return arraysOf(root) as Json;
}

/** Objects whose keys are 0, 1, 2… (from `expand[0]`) become arrays. */
function arraysOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([key, item]) => [key, arraysOf(item)] as const);
  const indexed = entries.length > 0 && entries.every(([key], index) => key === String(index));
  return indexed ? entries.map(([, item]) => item) : Object.fromEntries(entries);
}

const stripeError = (status: number, error: Json): Answer => ({ status, body: { error } });

/** The card_error of a declined confirmation (a PaymentIntent's or a SetupIntent's). */
const cardError = (decline: Decline, paymentMethod: Json): Json => ({
  type: 'card_error',
  code: decline.code,
  ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
  message: decline.message,
  doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
  payment_method: paymentMethod,
});

/** The intents the simulator keeps, by their `object`: confirmed alike, each with its own words. */
type IntentObject = 'payment_intent' | 'setup_intent';
const intentNames: Record<IntentObject, string> = {
  payment_intent: 'PaymentIntent',
  setup_intent: 'SetupIntent',
};

/** `automatic_payment_methods` as the intent shows it. */
function automaticPaymentMethods(form: Json): Json | null {
  const automatic = form.automatic_payment_methods as Json | undefined;
  return automatic
    ? { enabled: automatic.enabled === 'true', allow_redirects: automatic.allow_redirects }
    : null;
}

/** A card confirmation: POST /v1/payment_intents with confirm=true, or …/confirm. */
const isPaymentConfirmation = (request: Request) =>
  request.method === 'POST' &&
  ((request.path === '/v1/payment_intents' && request.form.confirm === 'true') ||
    /^\/v1\/payment_intents\/[^/]+\/confirm$/.test(request.path));

/** The `Stripe-Signature` header of a payload, as Stripe makes it (v1: HMAC-SHA256). */
export function stripeSignature(payload: string, secret: string, timestamp = now()): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export async function startStripeSimulator(options: {
  /** stripe-mock's base URL. */
  upstream: string;
  /** The `whsec_…` secret the product verifies events with. */
  webhookSecret: string;
  /** Webhook endpoints known from the start (`npm start`'s API). */
  webhookTargets?: string[];
  port?: number;
  log?: (line: string) => void;
}): Promise<StripeSimulator> {
  const log = options.log ?? (() => {});
  const paymentIntents = new Map<string, Json>();
  const setupIntents = new Map<string, Json>();
  const paymentMethods = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  const idempotent = new Map<
    string,
    { fingerprint: string; answer: Promise<Answer>; storedAt: number }
  >();
  const events = new Map<string, StripeEvent>();
  let faults: Required<StripeFault>[] = [];
  /** Newest first: the most recently started API takes the events. */
  let targets = [...(options.webhookTargets ?? [])];
  const sockets = new Set<Socket>();
  let stopped = false;

  async function forward(request: Request): Promise<Answer> {
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'stripe-version', 'stripe-account']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const response = await fetch(new URL(request.path + request.search, options.upstream), {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'DELETE' ? undefined : request.rawBody,
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  let paymentMethodFixture: Promise<Answer> | undefined;

  /** A card payment method as stripe-mock shapes it, with the test card's brand and digits. */
  async function paymentMethod(request: Request, id: string): Promise<Json> {
    const known = paymentMethods.get(id);
    if (known) return known;
    const card = testCards[id] ?? defaultCard;
    paymentMethodFixture ??= forward({
      ...request,
      method: 'GET',
      path: '/v1/payment_methods/pm_card_visa',
      search: '',
    });
    const fixture = (await paymentMethodFixture).body;
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
    paymentMethods.set(id, method);
    return method;
  }

  function event(type: string, object: Json, request: Request): StripeEvent {
    const created: StripeEvent = {
      id: stripeId('evt'),
      type,
      object: structuredClone(object),
      created: now(),
      apiVersion: (request.headers['stripe-version'] as string | undefined) ?? null,
      request: {
        id: request.requestId,
        idempotency_key: (request.headers['idempotency-key'] as string | undefined) ?? null,
      },
    };
    events.set(created.id, created);
    return created;
  }

  /** A Payment- or SetupIntent as answered: `expand[]=payment_method` embeds the payment method. */
  function shown(intent: Json, request: Request): Json {
    const expand = [request.form.expand, request.query.expand].flat();
    const methodId = intent.payment_method;
    if (expand.includes('payment_method') && typeof methodId === 'string') {
      return { ...intent, payment_method: paymentMethods.get(methodId) ?? methodId };
    }
    return intent;
  }

  /**
   * The payment method an intent is confirmed with (the one passed, a new one made of a
   * confirmation token, or the intent's own), or Stripe's refusal to confirm it.
   */
  function methodToConfirm(intent: Json, request: Request): string | Answer {
    const object = intent.object as IntentObject;
    const name = intentNames[object];
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
      (typeof form.confirmation_token === 'string' && stripeId('pm')) ||
      (typeof intent.payment_method === 'string' ? intent.payment_method : null);
    return (
      methodId ||
      stripeError(400, {
        type: 'invalid_request_error',
        code: `${object}_unexpected_state`,
        message:
          `You cannot confirm this ${name} because it's missing a payment method. ` +
          `To confirm the ${name} with a payment method, pass \`payment_method\`.`,
      })
    );
  }

  /** A 200 with the intent, and the event of its new state. */
  const withEvent = (intent: Json, type: string, request: Request): Answer => ({
    status: 200,
    body: intent,
    events: [event(type, intent, request)],
  });

  /** The intent waits for its card holder's 3-D Secure step. */
  function awaitingAuthentication(intent: Json, request: Request): Answer {
    intent.status = 'requires_action';
    intent.next_action = {
      type: 'use_stripe_sdk',
      use_stripe_sdk: { type: 'three_d_secure_redirect', source: stripeId('src') },
    };
    return withEvent(intent, `${intent.object}.requires_action`, request);
  }

  /** The 402 card_error of a declined confirmation, carrying the intent, and its failure event. */
  const cardDeclined = (intent: Json, lastError: Json, eventType: string, request: Request) => ({
    status: 402,
    body: {
      error: {
        ...lastError,
        [intent.object as IntentObject]: intent,
        request_log_url: `https://dashboard.stripe.com/test/logs/${request.requestId}`,
      },
    },
    events: [event(eventType, intent, request)],
  });

  /** Confirms a kept intent as its kind does; a success shows it as asked (expansions). */
  async function confirmKept(intent: Json, request: Request): Promise<Answer> {
    const answer =
      intent.object === 'setup_intent'
        ? await confirmSetup(intent, request)
        : await confirm(intent, request);
    return answer.status === 200 ? { ...answer, body: shown(intent, request) } : answer;
  }

  async function confirm(intent: Json, request: Request): Promise<Answer> {
    const methodId = methodToConfirm(intent, request);
    if (typeof methodId !== 'string') return methodId;
    const { form } = request;
    const method = await paymentMethod(request, methodId);
    const card = request.forcedDecline ?? testCards[methodId] ?? defaultCard;
    const offSession = form.off_session === 'true';
    if (form.setup_future_usage) intent.setup_future_usage = form.setup_future_usage;
    intent.payment_method = methodId;
    intent.latest_charge = card.outcome === 'requires_action' ? null : stripeId('ch');
    intent.last_payment_error = null;
    intent.next_action = null;
    if (card.outcome === 'succeeded') {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
      return withEvent(intent, 'payment_intent.succeeded', request);
    }
    if (card.outcome === 'requires_action' && !offSession) {
      return awaitingAuthentication(intent, request);
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
    intent.status = 'requires_payment_method';
    intent.payment_method = null;
    const lastError = { ...cardError(decline, method), charge: intent.latest_charge };
    intent.last_payment_error = lastError;
    return cardDeclined(intent, lastError, 'payment_intent.payment_failed', request);
  }

  /** The buyer passed (or failed) the 3-D Secure step a `requires_action` PaymentIntent awaits. */
  function authenticated(intent: Json, succeeded: boolean, request: Request): Answer {
    intent.next_action = null;
    intent.latest_charge = stripeId('ch');
    if (succeeded) {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
      return withEvent(intent, 'payment_intent.succeeded', request);
    }
    intent.status = 'requires_payment_method';
    intent.last_payment_error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
      payment_method: paymentMethods.get(String(intent.payment_method)) ?? null,
    };
    intent.payment_method = null;
    return withEvent(intent, 'payment_intent.payment_failed', request);
  }

  async function createPaymentIntent(request: Request): Promise<Answer> {
    const checked = await forward(request);
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
      automatic_payment_methods: automaticPaymentMethods(form),
      canceled_at: null,
      cancellation_reason: null,
      capture_method: form.capture_method ?? 'automatic_async',
      client_secret: `${id}_secret_${randomBytes(12).toString('base64url')}`,
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
      status:
        form.payment_method || form.confirmation_token
          ? 'requires_confirmation'
          : 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    };
    paymentIntents.set(id, intent);
    // Only the outcome events are sent (not payment_intent.created): what the product acts on.
    return form.confirm === 'true'
      ? confirmKept(intent, request)
      : { status: 200, body: shown(intent, request) };
  }

  /**
   * Saves a card for later (a trial's): the test card decides as for a charge, except that a
   * card which `attaches` is saved, and an off-session charge never follows in the same call.
   */
  async function confirmSetup(intent: Json, request: Request): Promise<Answer> {
    const methodId = methodToConfirm(intent, request);
    if (typeof methodId !== 'string') return methodId;
    const method = await paymentMethod(request, methodId);
    const card = testCards[methodId] ?? defaultCard;
    intent.payment_method = methodId;
    intent.last_setup_error = null;
    intent.next_action = null;
    if (card.outcome === 'succeeded' || (card.outcome === 'declined' && card.attaches)) {
      intent.status = 'succeeded';
      return withEvent(intent, 'setup_intent.succeeded', request);
    }
    if (card.outcome === 'requires_action') return awaitingAuthentication(intent, request);
    const lastError = cardError(card, method);
    intent.status = 'requires_payment_method';
    intent.payment_method = null;
    intent.last_setup_error = lastError;
    return cardDeclined(intent, lastError, 'setup_intent.setup_failed', request);
  }

  /** A SetupIntent on stripe-mock's fixture, with its own id and state (confirmed at once on `confirm=true`). */
  async function createSetupIntent(request: Request): Promise<Answer> {
    const checked = await forward(request);
    if (checked.status >= 400) return checked;
    const { form } = request;
    const id = stripeId('seti');
    const intent: Json = {
      ...checked.body,
      id,
      automatic_payment_methods: automaticPaymentMethods(form),
      client_secret: `${id}_secret_${randomBytes(12).toString('base64url')}`,
      created: now(),
      customer: form.customer ?? null,
      description: form.description ?? null,
      last_setup_error: null,
      latest_attempt: null,
      metadata: form.metadata ?? {},
      next_action: null,
      payment_method: typeof form.payment_method === 'string' ? form.payment_method : null,
      status:
        form.payment_method || form.confirmation_token
          ? 'requires_confirmation'
          : 'requires_payment_method',
      usage: form.usage ?? 'off_session',
    };
    setupIntents.set(id, intent);
    return form.confirm === 'true'
      ? confirmKept(intent, request)
      : { status: 200, body: shown(intent, request) };
  }

  /** What the refunds of a PaymentIntent give back or will: pending and succeeded ones. */
  const refundedOf = (intentId: unknown) =>
    [...refunds.values()]
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
  async function createRefund(request: Request): Promise<Answer> {
    const checked = await forward(request);
    if (checked.status >= 400) return checked;
    const { form } = request;
    const intent = paymentIntents.get(String(form.payment_intent));
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
    const left = Number(intent.amount_received) - refundedOf(intent.id);
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
    refunds.set(String(refund.id), refund);
    setTimeout(() => settleRefund(refund, intent, request), refundSettleMs).unref();
    return { status: 200, body: refund, events: [event('refund.created', refund, request)] };
  }

  /** A pending refund's outcome, sent as Stripe does: refund.updated, then its charge's news. */
  function settleRefund(refund: Json, intent: Json, request: Request) {
    if (stopped || refund.status !== 'pending') return;
    const fails = refundFailingCards.has(String(intent.payment_method));
    refund.status = fails ? 'failed' : 'succeeded';
    if (fails) refund.failure_reason = 'expired_or_canceled_card';
    const refunded = refundedOf(intent.id);
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
    const news = [
      event('refund.updated', refund, request),
      fails ? event('refund.failed', refund, request) : event('charge.refunded', charge, request),
    ];
    for (const item of news) void deliver(item);
  }

  /** Refunds: create and retrieve are kept here; other calls on them are stripe-mock's. */
  async function routeRefund(request: Request): Promise<Answer> {
    const { method, path } = request;
    if (method === 'POST' && path === '/v1/refunds') return createRefund(request);
    const id = /^\/v1\/refunds\/([^/]+)$/.exec(path)?.[1];
    const refund = id ? refunds.get(id) : undefined;
    if (method === 'GET' && refund) return { status: 200, body: refund };
    return forward(request);
  }

  /** The stateful calls; everything else is stripe-mock's answer. */
  async function route(request: Request): Promise<Answer> {
    const { method, path } = request;
    if (path.startsWith('/v1/refunds')) return routeRefund(request);
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(request);
    if (method === 'POST' && path === '/v1/setup_intents') return createSetupIntent(request);
    if (method === 'GET' && path === '/v1/payment_intents') {
      const customer = request.query.customer;
      const limit = Number(request.query.limit ?? 10);
      const data = [...paymentIntents.values()]
        .filter((intent) => customer === undefined || intent.customer === customer)
        .reverse();
      return {
        status: 200,
        body: {
          object: 'list',
          url: '/v1/payment_intents',
          has_more: data.length > limit,
          data: data.slice(0, limit).map((intent) => shown(intent, request)),
        },
      };
    }
    // A kept Payment- or SetupIntent: retrieved, confirmed, or (a PaymentIntent) canceled here.
    const match = /^\/v1\/(payment|setup)_intents\/([^/]+)(\/confirm|\/cancel)?$/.exec(path);
    const kept = match?.[1] === 'setup' ? setupIntents : paymentIntents;
    const intent = match?.[2] ? kept.get(match[2]) : undefined;
    if (!match || !intent) return forward(request);
    const checked = await forward(request);
    if (checked.status >= 400) return checked;
    if (method === 'GET' && !match[3]) return { status: 200, body: shown(intent, request) };
    if (method === 'POST' && match[3] === '/confirm') return confirmKept(intent, request);
    if (method === 'POST' && match[3] === '/cancel' && match[1] === 'payment') {
      if (intent.status === 'succeeded' || intent.status === 'canceled') {
        return stripeError(400, {
          type: 'invalid_request_error',
          code: 'payment_intent_unexpected_state',
          message: `You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`,
        });
      }
      intent.status = 'canceled';
      intent.canceled_at = now();
      intent.cancellation_reason = request.form.cancellation_reason ?? null;
      return withEvent(intent, 'payment_intent.canceled', request);
    }
    return forward(request);
  }

  /** Sends an event to the newest endpoint that takes it, retrying with backoff as Stripe does. */
  async function deliver(stripeEvent: StripeEvent): Promise<void> {
    const payload = JSON.stringify(
      {
        id: stripeEvent.id,
        object: 'event',
        api_version: stripeEvent.apiVersion,
        created: stripeEvent.created,
        data: { object: stripeEvent.object },
        livemode: false,
        pending_webhooks: 1,
        request: stripeEvent.request,
        type: stripeEvent.type,
      },
      null,
      2,
    );
    for (let attempt = 0; attempt < 12 && !stopped; attempt++) {
      for (const target of targets) {
        try {
          const response = await fetch(target, {
            method: 'POST',
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
              'stripe-signature': stripeSignature(payload, options.webhookSecret),
            },
            body: payload,
            signal: AbortSignal.timeout(30_000),
          });
          await response.arrayBuffer();
          if (response.ok) return;
          log(
            `event ${stripeEvent.id} (${stripeEvent.type}): ${target} answered ${response.status}`,
          );
        } catch (error) {
          log(`event ${stripeEvent.id} (${stripeEvent.type}): ${target}: ${String(error)}`);
        }
      }
      await sleep(Math.min(250 * 2 ** attempt, 30_000));
    }
    log(`event ${stripeEvent.id} (${stripeEvent.type}) was never delivered`);
  }

  async function control(request: Request): Promise<Answer> {
    const { method, path, form } = request;
    const body = form as Json;
    if (path === '/_simulator/webhook-targets' && method === 'POST') {
      const url = String(body.url);
      targets = [url, ...targets.filter((target) => target !== url)];
      return { status: 200, body: { targets } };
    }
    if (path === '/_simulator/webhook-targets' && method === 'DELETE') {
      targets = targets.filter((target) => target !== String(request.query.url));
      return { status: 200, body: { targets } };
    }
    if (path === '/_simulator/faults' && method === 'POST') {
      const fault = body as unknown as StripeFault;
      faults.push({
        path: fault.path,
        method: fault.method?.toUpperCase() ?? '',
        bodyIncludes: fault.bodyIncludes ?? '',
        mode: fault.mode,
        count: fault.count ?? 1,
        delayMs: fault.delayMs ?? 0,
        declineCode: fault.declineCode ?? 'generic_decline',
        message: fault.message ?? 'Your card was declined.',
      });
      return { status: 200, body: { faults } };
    }
    if (path === '/_simulator/faults' && method === 'GET') return { status: 200, body: { faults } };
    if (path === '/_simulator/faults' && method === 'DELETE') {
      faults = [];
      return { status: 200, body: { faults } };
    }
    const authentication = /^\/_simulator\/payment_intents\/([^/]+)\/authenticate$/.exec(path);
    const waiting = authentication?.[1] ? paymentIntents.get(authentication[1]) : undefined;
    if (authentication && method === 'POST') {
      if (waiting?.status !== 'requires_action') {
        return stripeError(400, {
          type: 'invalid_request_error',
          message: 'Nothing to authenticate.',
        });
      }
      const answer = authenticated(waiting, body.succeed !== false, request);
      for (const item of answer.events ?? []) void deliver(item);
      return answer;
    }
    const resend = /^\/_simulator\/events\/([^/]+)\/resend$/.exec(path);
    const known = resend?.[1] ? events.get(resend[1]) : undefined;
    if (known && method === 'POST') {
      await deliver(known);
      return { status: 200, body: { id: known.id } };
    }
    if (path === '/_simulator/events' && method === 'GET') {
      const intent = request.query.payment_intent;
      const list = [...events.values()].filter(
        (item) => intent === undefined || item.object.id === intent,
      );
      return { status: 200, body: { data: list.map(({ id, type }) => ({ id, type })) } };
    }
    return stripeError(404, { type: 'invalid_request_error', message: `No control ${path}` });
  }

  /** Stripe keeps idempotency keys for 24 hours; so do we, and events as long (`npm start`). */
  function forgetOldKeysAndEvents() {
    const dayAgo = now() - 86_400;
    for (const [key, { storedAt }] of idempotent) {
      if (storedAt > dayAgo) break;
      idempotent.delete(key);
    }
    for (const [id, { created }] of events) {
      if (created > dayAgo) break;
      events.delete(id);
    }
  }

  /** What `bodyIncludes` is looked for in (see StripeFault). */
  function matchedText(request: Request): string {
    let decoded = request.rawBody;
    try {
      decoded = decodeURIComponent(request.rawBody.replaceAll('+', ' '));
    } catch {
      // Not URL-encoded after all: the raw body alone is matched.
    }
    const confirmed = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(request.path)?.[1];
    const metadata = confirmed ? paymentIntents.get(confirmed)?.metadata : undefined;
    return [request.rawBody, decoded, metadata ? JSON.stringify(metadata) : ''].join('\n');
  }

  /** A POST whose Idempotency-Key already has an answer for these parameters. */
  function isReplay(request: Request): boolean {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || typeof key !== 'string') return false;
    return idempotent.get(key)?.fingerprint === `${request.path}?${request.rawBody}`;
  }

  function takeFault(request: Request): Required<StripeFault> | undefined {
    const text = matchedText(request);
    const fault = faults.find(
      (candidate) =>
        request.path.startsWith(candidate.path) &&
        (!candidate.method || candidate.method === request.method) &&
        text.includes(candidate.bodyIncludes) &&
        (candidate.mode !== 'decline' || (isPaymentConfirmation(request) && !isReplay(request))),
    );
    if (!fault) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) faults = faults.filter((candidate) => candidate !== fault);
    return fault;
  }

  /** The answer as it is now: a replay shows it so, whatever happens to the objects later. */
  const snapshot = (request: Request) =>
    route(request).then((answer) => ({ ...answer, body: structuredClone(answer.body) }));

  /** The call's answer, once per Idempotency-Key: a repeat gets the first answer again. */
  function answerOnce(request: Request): { answer: Promise<Answer>; replayed: boolean } {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || typeof key !== 'string') {
      return { answer: snapshot(request), replayed: false };
    }
    const fingerprint = `${request.path}?${request.rawBody}`;
    const stored = idempotent.get(key);
    if (stored && stored.fingerprint !== fingerprint) {
      return {
        answer: Promise.resolve(
          stripeError(400, {
            type: 'idempotency_error',
            message:
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          }),
        ),
        replayed: false,
      };
    }
    if (stored) return { answer: stored.answer, replayed: true };
    const answer = snapshot(request);
    idempotent.set(key, { fingerprint, answer, storedAt: now() });
    forgetOldKeysAndEvents();
    // Stripe keeps no result for a call that failed on its side: a retry runs it afresh.
    answer.then(
      (result) => result.status >= 500 && idempotent.delete(key),
      () => idempotent.delete(key),
    );
    return { answer, replayed: false };
  }

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(incoming.url ?? '/', 'http://simulator');
    const method = incoming.method ?? 'GET';
    const isJson = incoming.headers['content-type']?.startsWith('application/json');
    const request: Request = {
      method,
      path: url.pathname,
      search: url.search,
      query: parseStripeForm(url.search.slice(1)),
      form: isJson && rawBody ? (JSON.parse(rawBody) as Json) : parseStripeForm(rawBody),
      rawBody,
      headers: incoming.headers,
      requestId: stripeId('req'),
    };
    const send = (answer: Answer, extraHeaders: Record<string, string> = {}) => {
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'request-id': request.requestId,
        ...extraHeaders,
      });
      response.end(JSON.stringify(answer.body, null, 2));
    };
    if (request.path.startsWith('/_simulator/')) {
      send(await control(request));
      return;
    }
    const fault = takeFault(request);
    if (fault?.mode === 'hang') return;
    if (fault?.mode === 'error') {
      send(stripeError(500, { type: 'api_error', message: 'Simulated Stripe failure.' }));
      return;
    }
    if (fault?.mode === 'drop') {
      await sleep(fault.delayMs);
      response.destroy();
      return;
    }
    if (fault?.mode === 'decline') {
      request.forcedDecline = declined('0000', 'card_declined', fault.declineCode, fault.message);
    }
    const { answer, replayed } = answerOnce(request);
    const result = await answer;
    const events = replayed ? [] : (result.events ?? []);
    if (fault?.mode === 'lost') {
      for (const item of events) void deliver(item);
      await sleep(fault.delayMs);
      response.destroy();
      return;
    }
    send(result, {
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      ...(typeof request.headers['idempotency-key'] === 'string'
        ? { 'idempotency-key': request.headers['idempotency-key'] }
        : {}),
    });
    // As Stripe does, the operation's events go out once it has answered.
    for (const item of events) void deliver(item);
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      log(`${incoming.method} ${incoming.url}: ${String(error)}`);
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
      stopped = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The simulator's control API, for tests and `npm start`. */
export function stripeSimulatorControl(simulatorUrl: string) {
  const call = async (method: string, path: string, body?: Json): Promise<Json> => {
    const response = await fetch(new URL(path, simulatorUrl), {
      method,
      headers: { 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const answer = (await response.json()) as Json;
    if (!response.ok) throw new Error(`Stripe simulator ${method} ${path}: ${response.status}`);
    return answer;
  };
  return {
    /** Events go to this endpoint (newest registered first) while it is registered. */
    registerWebhookTarget: (url: string) =>
      call('POST', '/_simulator/webhook-targets', { url }).then(() => undefined),
    unregisterWebhookTarget: (url: string) =>
      call('DELETE', `/_simulator/webhook-targets?url=${encodeURIComponent(url)}`).then(
        () => undefined,
      ),
    injectFault: (fault: StripeFault) =>
      call('POST', '/_simulator/faults', { ...fault }).then(() => undefined),
    /**
     * Declines the next `count` PaymentIntent confirmations whose body or metadata includes
     * `bodyIncludes` (a subscription's id, say) as a card decline with `declineCode`.
     */
    declinePayments: (decline: {
      bodyIncludes: string;
      declineCode: string;
      message?: string;
      count?: number;
    }) =>
      call('POST', '/_simulator/faults', {
        path: '/v1/payment_intents',
        method: 'POST',
        mode: 'decline',
        ...decline,
      }).then(() => undefined),
    clearFaults: () => call('DELETE', '/_simulator/faults').then(() => undefined),
    /** The injected faults not used up yet. */
    pendingFaults: () =>
      call('GET', '/_simulator/faults').then((answer) => answer.faults as Required<StripeFault>[]),
    /** The events a PaymentIntent caused, oldest first. */
    async eventsOf(paymentIntentId: string): Promise<{ id: string; type: string }[]> {
      const answer = await call(
        'GET',
        `/_simulator/events?payment_intent=${encodeURIComponent(paymentIntentId)}`,
      );
      return answer.data as { id: string; type: string }[];
    },
    /** Completes the 3-D Secure step of a `requires_action` PaymentIntent, as its buyer would. */
    authenticatePayment: (paymentIntentId: string, { succeed = true } = {}) =>
      call(
        'POST',
        `/_simulator/payment_intents/${encodeURIComponent(paymentIntentId)}/authenticate`,
        { succeed },
      ).then(() => undefined),
    /** Delivers an event again, same id and payload (a redelivery, as Stripe does). */
    resendEvent: (eventId: string) =>
      call('POST', `/_simulator/events/${encodeURIComponent(eventId)}/resend`).then(
        () => undefined,
      ),
  };
}

export type StripeSimulatorControl = ReturnType<typeof stripeSimulatorControl>;
