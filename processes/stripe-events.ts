import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type Stripe from 'stripe';
import { awaitsAuthenticationOf } from '../commerce/checkouts/outcomes.ts';
import { paymentOfIntent, recordPaymentOutcome } from '../commerce/payments/service.ts';
import { refundOutcomeOf } from '../commerce/refunds/service.ts';
import type { Logger } from '../config/logger.ts';
import { ProcessedStripeEvent } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentOutcome } from '../domain/payments.ts';
import { setupResultOf } from '../integrations/stripe/payments.ts';
import { paymentOutcomeSignal, setupOutcomeSignal } from './payment-outcome.ts';
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
 * A refund's final status, signalled to the refund workflow named by its `metadata.workflow_id`
 * (within the caller's transaction, as the payment outcomes are); a status not final yet tells
 * the workflow nothing.
 */
async function signalRefundOutcome(
  temporal: Client,
  logger: Logger,
  event: Stripe.Event,
): Promise<StripeEventResult> {
  const refund = event.data.object as Stripe.Refund;
  const workflowId = refund.metadata?.workflow_id;
  if (!workflowId || !['succeeded', 'failed', 'canceled'].includes(refund.status ?? '')) {
    return 'ignored';
  }
  await signalRunning(temporal, logger, event, workflowId, (handle) =>
    handle.signal(refundOutcomeSignal, refundOutcomeOf(refund)),
  );
  return 'applied';
}

/**
 * How a checkout's card setup that waited for its holder's 3-D Secure step ended, signalled to
 * the checkout's workflow (`metadata.workflow_id`). A SetupIntent that never waited (saved or
 * declined at once, the workflow had the answer of its own call) is no news: nothing is sent.
 */
async function signalSetupOutcome(
  { orm, temporal, logger }: { orm: Orm; temporal: Client; logger: Logger },
  event: Stripe.Event,
): Promise<StripeEventResult> {
  const intent = event.data.object as Stripe.SetupIntent;
  const { workflow_id: workflowId, checkout_id: checkoutId } = intent.metadata ?? {};
  if (!workflowId || !checkoutId) return 'ignored';
  if (!(await awaitsAuthenticationOf(orm.em.fork(), checkoutId, intent.id))) return 'ignored';
  const result = setupResultOf(intent);
  if (result.status === 'requires_action') return 'ignored';
  const { setupIntentId, status, paymentMethodId, declineCode, message } = result;
  await signalRunning(temporal, logger, event, workflowId, (handle) =>
    handle.signal(setupOutcomeSignal, {
      setupIntentId,
      status,
      paymentMethodId,
      declineCode,
      message,
    }),
  );
  return 'applied';
}

/** Signals the workflow an event is for; one that has ended wants no more news of it. */
async function signalRunning(
  temporal: Client,
  logger: Logger,
  event: Stripe.Event,
  workflowId: string,
  signal: (handle: WorkflowHandle) => Promise<void>,
): Promise<void> {
  try {
    await signal(temporal.workflow.getHandle(workflowId));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.warn({ eventId: event.id, workflowId }, 'Stripe event for a workflow not running');
  }
}

/**
 * Applies one verified Stripe event, once per event id. In one transaction: the event id is
 * claimed (a redelivery, even a concurrent one, finds it taken and does nothing), the Payment
 * named by the PaymentIntent's `metadata.payment_id` takes the outcome (written by it when the
 * charge's own answer was not yet), and the workflow named by `metadata.workflow_id`
 * (`checkout:<id>`, `subscription:<id>`…) is signalled before the commit (unless the payment was
 * settled already): if Temporal cannot take the signal nothing is kept, and Stripe's redelivery
 * retries.
 */
export async function applyStripeEvent(
  { orm, temporal, logger }: { orm: Orm; temporal: Client; logger: Logger },
  event: Stripe.Event,
): Promise<StripeEventResult> {
  return orm.em.fork().transactional(async (tx) => {
    const claimed = await tx
      .createQueryBuilder(ProcessedStripeEvent)
      .insert({ id: event.id, type: event.type, receivedAt: new Date() })
      .onConflict('id')
      .ignore()
      .execute('run');
    if (!claimed.affectedRows) return 'duplicate';
    if (refundEvents.has(event.type)) return signalRefundOutcome(temporal, logger, event);
    if (setupIntentEvents.has(event.type)) {
      return signalSetupOutcome({ orm, temporal, logger }, event);
    }
    if (!paymentIntentEvents.has(event.type)) return 'ignored';
    const intent = event.data.object as Stripe.PaymentIntent;
    const { workflow_id: workflowId, payment_id: paymentId } = intent.metadata ?? {};
    if (!workflowId || !paymentId) return 'ignored';
    const recorded = await recordPaymentOutcome(tx, paymentOfIntent(paymentId, intent), intent);
    if (!recorded?.outcome) return 'ignored';
    // Settled already by the charge's own answer, which its activity hands the workflow: a
    // signal would tell it nothing new, and cost it a workflow task (arriving as it completes,
    // one that fails and runs its last steps again). An event settling the payment ahead of the
    // charge's own answer needs none either: that answer, recorded after it, finds the payment
    // settled and hands this outcome over. Only a workflow told `processing` (or
    // `requires_action`) by its charge waits for a signal.
    const settles = recorded.outcome.status !== 'requires_action';
    if (recorded.settledBefore || (settles && !recorded.answeredBefore)) return 'applied';
    // A workflow that has ended wants no more outcomes; the payment's row still has it.
    await signalRunning(temporal, logger, event, workflowId, (handle) =>
      handle.signal(paymentOutcomeSignal, recorded.outcome as PaymentOutcome),
    );
    return 'applied';
  });
}
