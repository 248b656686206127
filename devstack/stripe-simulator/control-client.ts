import type { Json } from './wire.ts';

export type StripeFaultMode = StripeCallFaultMode | StripeWebhookFaultMode;
export type StripeCallFaultMode = 'error' | 'drop' | 'lost' | 'hang' | 'slow' | 'decline';
export type StripeWebhookFaultMode = 'duplicate' | 'reorder';

/**
 * What happens to the next `count` calls matching `method` (any when unset), a path starting
 * with `path` and, when set, a raw body containing `bodyIncludes` (say, a checkout's id: tests
 * sharing the simulator then never catch each other's calls):
 * - `error`: a 500 api_error, nothing done;
 * - `drop`: the connection closes after `delayMs`, nothing done (the call never reached Stripe);
 * - `lost`: the call is done (stored under its idempotency key, events sent), then the
 *   connection closes after `delayMs` without an answer (Stripe charged; the answer was lost);
 * - `hang`: no answer ever, nothing done (until the client gives up);
 * - `slow`: the call is done and answered as usual, `delayMs` late;
 * - `decline`: only PaymentIntent confirmations (a create with `confirm=true`, or `/confirm`)
 *   match; each is declined as a card decline with `declineCode` (and `message`), whatever the
 *   card: a 402 card_error, the PaymentIntent back in requires_payment_method, and the
 *   payment_intent.payment_failed event. A replay of an answered Idempotency-Key is not one;
 * - `duplicate` (webhooks): the call is answered as usual; each event its answer sends is
 *   delivered twice, at once (as Stripe may: same event id, two deliveries);
 * - `reorder` (webhooks): the call is answered as usual; the events its answer sends are held
 *   `delayMs` (1 s when unset) and then sent newest first, so the events that follow them (a
 *   refund's settlement, the next call's) overtake them.
 * A call can meet one call fault and one webhook fault (`duplicate`, `reorder`) at once.
 *
 * `bodyIncludes` is looked for in the raw body, its URL-decoded form, and the metadata of the
 * PaymentIntent a `/confirm` names: the metadata's `workflow_id` (`subscription:<id>`) matches.
 */
export interface StripeFault {
  path: string;
  method?: string;
  bodyIncludes?: string;
  mode: StripeFaultMode;
  count?: number;
  delayMs?: number;
  /** `decline`: Stripe's decline code, e.g. `insufficient_funds`, `lost_card`. */
  declineCode?: string;
  /** `decline`: the processor's message; Stripe's generic one when unset. */
  message?: string;
}

/**
 * Faults at random (for the soak): each Stripe call (not the control API's) under `pathPrefix`
 * (`/v1/` when unset) meets at most one call fault, drawn with these probabilities (their sum at
 * most 1), and independently at most one webhook fault (`duplicate` + `reorder` at most 1).
 * `decline` is not drawn: a decline is the buyer's card, not a fault. `seed` makes the draws
 * repeatable; `dropDelayMs` (0), `slowMs` (2 s, below the client's timeout) and `reorderMs` (1 s)
 * are the delays of the faults drawn.
 */
export interface StripeChaos {
  error?: number;
  drop?: number;
  lost?: number;
  hang?: number;
  slow?: number;
  duplicate?: number;
  reorder?: number;
  pathPrefix?: string;
  seed?: number;
  dropDelayMs?: number;
  slowMs?: number;
  reorderMs?: number;
}

/** How many times each fault mode struck, armed or drawn at random, since the simulator started. */
export type StripeFaultCounts = Partial<Record<StripeFaultMode, number>>;

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
    /** Faults at random from now on (replacing earlier settings), until `clearChaos`. */
    setChaos: (chaos: StripeChaos) =>
      call('POST', '/_simulator/chaos', { ...chaos }).then(() => undefined),
    clearChaos: () => call('DELETE', '/_simulator/chaos').then(() => undefined),
    /** Every fault that struck so far, by mode (armed and random ones alike). */
    faultCounts: () =>
      call('GET', '/_simulator/chaos').then((answer) => answer.counts as StripeFaultCounts),
    /** The injected faults not used up yet. */
    pendingFaults: () =>
      call('GET', '/_simulator/faults').then((answer) => answer.faults as Required<StripeFault>[]),
    /**
     * The events of a PaymentIntent (or of any object by its id: a refund's), oldest first, with
     * the times (ms since the epoch) an endpoint took each: once per delivery, duplicates too.
     */
    async eventsOf(
      paymentIntentId: string,
    ): Promise<{ id: string; type: string; deliveredAt: number[] }[]> {
      const answer = await call(
        'GET',
        `/_simulator/events?payment_intent=${encodeURIComponent(paymentIntentId)}`,
      );
      return answer.data as { id: string; type: string; deliveredAt: number[] }[];
    },
    /** Completes the 3-D Secure step of a `requires_action` PaymentIntent, as its buyer would. */
    authenticatePayment: (paymentIntentId: string, { succeed = true } = {}) =>
      call(
        'POST',
        `/_simulator/payment_intents/${encodeURIComponent(paymentIntentId)}/authenticate`,
        { succeed },
      ).then(() => undefined),
    /** Completes the 3-D Secure step of a `requires_action` SetupIntent, as its card holder would. */
    authenticateSetup: (setupIntentId: string, { succeed = true } = {}) =>
      call('POST', `/_simulator/setup_intents/${encodeURIComponent(setupIntentId)}/authenticate`, {
        succeed,
      }).then(() => undefined),
    /**
     * Makes the customer's saved card read as expiring at the end of `expMonth`/`expYear` (cards
     * are issued running three years): for what a card expiring soon does.
     */
    setCardExpiry: (
      stripeCustomerId: string,
      paymentMethodId: string,
      { expMonth, expYear }: { expMonth: number; expYear: number },
    ) =>
      call('POST', `/_simulator/payment_methods/${encodeURIComponent(paymentMethodId)}/expiry`, {
        customer: stripeCustomerId,
        exp_month: expMonth,
        exp_year: expYear,
      }).then(() => undefined),
    /** The Stripe Tax transactions and reversals recorded, oldest first (stripe-simulator/tax.ts). */
    taxTransactions: () =>
      call('GET', '/_simulator/tax/transactions').then(
        (answer) =>
          answer.data as { id: string; type: string; reference: string; flat_amount?: number }[],
      ),
    /** Delivers an event again, same id and payload (a redelivery, as Stripe does). */
    resendEvent: (eventId: string) =>
      call('POST', `/_simulator/events/${encodeURIComponent(eventId)}/resend`).then(
        () => undefined,
      ),
  };
}

export type StripeSimulatorControl = ReturnType<typeof stripeSimulatorControl>;
