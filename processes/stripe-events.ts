import type { EntityManager } from '@mikro-orm/postgresql';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type Stripe from 'stripe';
import { awaitsAuthenticationOf } from '../commerce/checkouts/outcomes.ts';
import { paymentOfIntent, recordPaymentOutcome } from '../commerce/payments/service.ts';
import { refundOutcomeOf } from '../commerce/refunds/service.ts';
import type { Logger } from '../config/logger.ts';
import type { WorkflowSignalCall } from '../db/entities/checkout.ts';
import { ProcessedStripeEvent } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { setupResultOf } from '../integrations/stripe/payments.ts';
import { paymentOutcomeSignal, type SetupOutcome, setupOutcomeSignal } from './payment-outcome.ts';
import { refundOutcomeSignal } from './refund.ts';

/** The events that settle (or hold up) a payment attempt. */
const paymentIntentEvents = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.requires_action',
]);

/** The events that end a SetupIntent's wait for its card holder's 3-D Secure step. */
const setupIntentEvents = new Set(['setup_intent.succeeded', 'setup_intent.setup_failed']);

/** The events that tell how a refund ended (their object is the Refund). */
const refundEvents = new Set(['refund.updated', 'refund.failed', 'charge.refund.updated']);

export type StripeEventResult = 'applied' | 'duplicate' | 'ignored';

/**
 * The signal a refund's final status owes the refund workflow named by its
 * `metadata.workflow_id`; a status not final yet tells the workflow nothing.
 */
function refundSignalOf(event: Stripe.Event): StripeEventOutcome {
  const refund = event.data.object as Stripe.Refund;
  const workflowId = refund.metadata?.workflow_id;
  if (!workflowId || !['succeeded', 'failed', 'canceled'].includes(refund.status ?? '')) {
    return { result: 'ignored' };
  }
  return {
    result: 'applied',
    signal: { workflowId, signal: refundOutcomeSignal.name, args: [refundOutcomeOf(refund)] },
  };
}

/**
 * How a checkout's card setup that waited for its holder's 3-D Secure step ended, owed to the
 * checkout's workflow (`metadata.workflow_id`). A SetupIntent that never waited (saved or
 * declined at once, the workflow had the answer of its own call) is no news: nothing is sent.
 */
async function setupSignalOf(orm: Orm, event: Stripe.Event): Promise<StripeEventOutcome> {
  const intent = event.data.object as Stripe.SetupIntent;
  const { workflow_id: workflowId, checkout_id: checkoutId } = intent.metadata ?? {};
  if (!workflowId || !checkoutId) return { result: 'ignored' };
  if (!(await awaitsAuthenticationOf(orm.em.fork(), checkoutId, intent.id))) {
    return { result: 'ignored' };
  }
  const result = setupResultOf(intent);
  if (result.status === 'requires_action') return { result: 'ignored' };
  const { setupIntentId, status, paymentMethodId, declineCode, message } = result;
  const outcome: SetupOutcome = { setupIntentId, status, paymentMethodId, declineCode, message };
  return {
    result: 'applied',
    signal: { workflowId, signal: setupOutcomeSignal.name, args: [outcome] },
  };
}

/**
 * What a payment event tells: the Payment named by the PaymentIntent's `metadata.payment_id`
 * takes the outcome (written by it when the charge's own answer was not yet), and the workflow
 * named by `metadata.workflow_id` (`checkout:<id>`, `subscription:<id>`…) is owed it, unless the
 * payment was settled already.
 */
async function paymentOutcomeOf(tx: EntityManager, event: Stripe.Event) {
  if (!paymentIntentEvents.has(event.type)) return { result: 'ignored' } as const;
  const intent = event.data.object as Stripe.PaymentIntent;
  const { workflow_id: workflowId, payment_id: paymentId } = intent.metadata ?? {};
  if (!workflowId || !paymentId) return { result: 'ignored' } as const;
  const recorded = await recordPaymentOutcome(tx, paymentOfIntent(paymentId, intent), intent);
  if (!recorded?.outcome) return { result: 'ignored' } as const;
  // Settled already by the charge's own answer, which its activity hands the workflow: a
  // signal would tell it nothing new, and cost it a workflow task (arriving as it completes,
  // one that fails and runs its last steps again). An event settling the payment ahead of the
  // charge's own answer needs none either: that answer, recorded after it, finds the payment
  // settled and hands this outcome over. Only a workflow told `processing` (or
  // `requires_action`) by its charge waits for a signal.
  const settles = recorded.outcome.status !== 'requires_action';
  if (recorded.settledBefore || (settles && !recorded.answeredBefore)) {
    return { result: 'applied' } as const;
  }
  const signal = { workflowId, signal: paymentOutcomeSignal.name, args: [recorded.outcome] };
  // Only a settled outcome is owed: a `requires_action` sent again after the settling one
  // would overwrite it in the workflow, which waits for the settled one alone.
  return { result: 'applied', signal, owed: settles } as const;
}

/** An event's result, and the signal it sends a workflow (owed until sent, when `owed`). */
interface StripeEventOutcome {
  result: StripeEventResult;
  signal?: WorkflowSignalCall;
  owed?: boolean;
}

/** Sends a signal; a workflow that has ended wants no more news of it. */
async function sendSignal(
  temporal: Client,
  logger: Logger,
  eventId: string,
  { workflowId, signal, args }: WorkflowSignalCall,
): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(signal, ...args);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.warn({ eventId, workflowId }, 'Stripe event for a workflow not running');
  }
}

/** How long a sender has to get an owed signal to Temporal before a redelivery sends it too. */
const signalLeaseMs = 60_000;

/**
 * The signal an earlier delivery of the event owes and no sender holds (it failed, or its process
 * died past the lease), leased to this delivery; none when nothing is owed or it is being sent.
 */
async function takeOwedSignal(tx: EntityManager, eventId: string) {
  const now = new Date();
  const [owed] = await tx.execute<{ owed_signal: WorkflowSignalCall }[]>(
    `update processed_stripe_events set owed_signal_leased_until = ?
     where id = ? and owed_signal is not null
       and (owed_signal_leased_until is null or owed_signal_leased_until < ?)
     returning owed_signal`,
    [new Date(now.getTime() + signalLeaseMs), eventId, now],
  );
  return owed?.owed_signal;
}

/**
 * Applies one verified Stripe event, once per event id. In one transaction: the event id is
 * claimed (a redelivery, even a concurrent one, finds it taken and does nothing), a payment
 * event's outcome is recorded (paymentOutcomeOf), and the signal the event owes a workflow is
 * kept on the claim, leased to this delivery. The signal is sent after the commit, so no
 * transaction waits on Temporal, and then cleared. If Temporal cannot take it the lease is
 * given back and the request fails: Stripe's redelivery finds the signal still owed and sends
 * it (as it does once the lease of a sender that died has passed).
 */
export async function applyStripeEvent(
  { orm, temporal, logger }: { orm: Orm; temporal: Client; logger: Logger },
  event: Stripe.Event,
): Promise<StripeEventResult> {
  const db = orm.em.fork();
  const outcome = await db.transactional(async (tx): Promise<StripeEventOutcome> => {
    const claimed = await tx
      .createQueryBuilder(ProcessedStripeEvent)
      .insert({ id: event.id, type: event.type, receivedAt: new Date() })
      .onConflict('id')
      .ignore()
      .execute('run');
    if (!claimed.affectedRows) {
      return { result: 'duplicate', signal: await takeOwedSignal(tx, event.id), owed: true };
    }
    const found = refundEvents.has(event.type)
      ? refundSignalOf(event)
      : setupIntentEvents.has(event.type)
        ? await setupSignalOf(orm, event)
        : await paymentOutcomeOf(tx, event);
    const owed = found.signal !== undefined && (found.owed ?? true);
    if (owed) {
      await tx.nativeUpdate(ProcessedStripeEvent, event.id, {
        owedSignal: found.signal,
        owedSignalLeasedUntil: new Date(Date.now() + signalLeaseMs),
      });
    }
    return { ...found, owed };
  });
  if (!outcome.signal) return outcome.result;
  try {
    await sendSignal(temporal, logger, event.id, outcome.signal);
  } catch (error) {
    if (outcome.owed) {
      await db.nativeUpdate(ProcessedStripeEvent, event.id, { owedSignalLeasedUntil: null });
    }
    throw error;
  }
  if (outcome.owed) {
    await db.nativeUpdate(ProcessedStripeEvent, event.id, {
      owedSignal: null,
      owedSignalLeasedUntil: null,
    });
  }
  return outcome.result;
}
