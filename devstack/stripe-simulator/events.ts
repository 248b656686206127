import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { attachSavedCard } from './payment-methods.ts';
import type { SimulatorState } from './state.ts';
import { type Json, now, type Request, type StripeEvent, stripeId } from './wire.ts';

/**
 * A Stripe event of `object` as it is now, caused by `request`; kept for the control API. An
 * intent's success passes here whatever led to it, so a card it saves is attached here too.
 */
export function recordEvent(
  state: SimulatorState,
  type: string,
  object: Json,
  request: Request,
): StripeEvent {
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
    deliveredAt: [],
  };
  state.events.set(created.id, created);
  attachSavedCard(state, type, object);
  return created;
}

/** The `Stripe-Signature` header of a payload, as Stripe makes it (v1: HMAC-SHA256). */
export function stripeSignature(payload: string, secret: string, timestamp = now()): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** Sends the events in the background, each on its own. */
export function deliverAll(state: SimulatorState, events: StripeEvent[]): void {
  for (const item of events) void deliver(state, item);
}

/** Sends an event to the newest endpoint that takes it, retrying with backoff as Stripe does. */
export async function deliver(state: SimulatorState, stripeEvent: StripeEvent): Promise<void> {
  const payload = webhookPayload(stripeEvent);
  for (let attempt = 0; attempt < 12 && !state.stopped; attempt++) {
    for (const target of state.targets) {
      if (await post(state, target, payload, stripeEvent)) return;
    }
    await sleep(Math.min(250 * 2 ** attempt, 30_000));
  }
  state.log(`event ${stripeEvent.id} (${stripeEvent.type}) was never delivered`);
}

/** The event's body as Stripe posts it to a webhook endpoint. */
function webhookPayload(stripeEvent: StripeEvent): string {
  return JSON.stringify(
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
}

/** One signed delivery attempt to one endpoint: whether it took the event. */
async function post(
  state: SimulatorState,
  target: string,
  payload: string,
  stripeEvent: StripeEvent,
): Promise<boolean> {
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'stripe-signature': stripeSignature(payload, state.webhookSecret),
      },
      body: payload,
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    if (response.ok) {
      stripeEvent.deliveredAt.push(Date.now());
      return true;
    }
    state.log(
      `event ${stripeEvent.id} (${stripeEvent.type}): ${target} answered ${response.status}`,
    );
  } catch (error) {
    state.log(`event ${stripeEvent.id} (${stripeEvent.type}): ${target}: ${String(error)}`);
  }
  return false;
}
