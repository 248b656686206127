import type { StripeChaos, StripeFault, StripeFaultCounts } from './control-client.ts';
import type { Answer, Json, Request, StripeEvent } from './wire.ts';

export interface SimulatorOptions {
  /** stripe-mock's base URL. */
  upstream: string;
  /** The `whsec_…` secret the product verifies events with. */
  webhookSecret: string;
  /** Webhook endpoints known from the start (`npm start`'s API). */
  webhookTargets?: string[];
  port?: number;
  log?: (line: string) => void;
}

/** An Idempotency-Key's first answer, for the calls that repeat it. */
export interface StoredAnswer {
  /** The path and raw body the key was first used with. */
  fingerprint: string;
  answer: Promise<Answer>;
  storedAt: number;
}

/** A card a customer saved: when it was attached, and the expiry a test gave it, if any. */
export interface SavedCard {
  attachedAt: number;
  expiry?: { exp_month: number; exp_year: number };
}

/** What the simulator keeps between calls, since stripe-mock keeps nothing. */
export interface SimulatorState {
  upstream: string;
  webhookSecret: string;
  log: (line: string) => void;
  paymentIntents: Map<string, Json>;
  setupIntents: Map<string, Json>;
  paymentMethods: Map<string, Json>;
  /** Each customer's saved cards by payment method id, newest attached last (payment-methods.ts). */
  customerCards: Map<string, Map<string, SavedCard>>;
  /** Confirmation tokens made through the test helper (confirmation-tokens.ts). */
  confirmationTokens: Map<string, Json>;
  /** stripe-mock's card payment method, asked for once: the shape of every one made here. */
  paymentMethodFixture: Promise<Answer> | undefined;
  refunds: Map<string, Json>;
  /** Stripe Tax calculations by id, and the transactions and reversals made of them (tax.ts). */
  taxCalculations: Map<string, Json>;
  taxTransactions: Json[];
  /** By Idempotency-Key, oldest first. */
  idempotent: Map<string, StoredAnswer>;
  /** By id, oldest first. */
  events: Map<string, StripeEvent>;
  faults: Required<StripeFault>[];
  /** Faults at random, when set (faults.ts), with the draws' source. */
  chaos: { settings: StripeChaos; random: () => number } | undefined;
  faultCounts: StripeFaultCounts;
  /** Newest first: the most recently started API takes the events. */
  targets: string[];
  /** Set once the simulator stops: no more deliveries or refund settlements. */
  stopped: boolean;
}

export function newSimulatorState(options: SimulatorOptions): SimulatorState {
  return {
    upstream: options.upstream,
    webhookSecret: options.webhookSecret,
    log: options.log ?? (() => {}),
    paymentIntents: new Map(),
    setupIntents: new Map(),
    paymentMethods: new Map(),
    customerCards: new Map(),
    confirmationTokens: new Map(),
    paymentMethodFixture: undefined,
    refunds: new Map(),
    taxCalculations: new Map(),
    taxTransactions: [],
    idempotent: new Map(),
    events: new Map(),
    faults: [],
    chaos: undefined,
    faultCounts: {},
    targets: [...(options.webhookTargets ?? [])],
    stopped: false,
  };
}

/** stripe-mock's answer to the call: its parameter validation, and its fixture. */
export async function forward(state: SimulatorState, request: Request): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'stripe-version', 'stripe-account']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const response = await fetch(new URL(request.path + request.search, state.upstream), {
    method: request.method,
    headers,
    body: request.method === 'GET' || request.method === 'DELETE' ? undefined : request.rawBody,
  });
  return { status: response.status, body: (await response.json()) as Json };
}
