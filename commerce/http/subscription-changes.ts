import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client, UpdateDefinition } from '@temporalio/client';
import { AppError, invalidField } from '../../core/errors.ts';
import type { Subscription } from '../../db/entities/index.ts';
import type {
  RenewalRetryOutcome,
  SubscriptionChange,
  SubscriptionChangeResult,
} from '../../domain/subscription-schedule.ts';
import { refusalFromWorkflowFailure } from '../../processes/activity-errors.ts';
import { updateSubscription } from '../../processes/starters.ts';
import {
  changeSubscriptionUpdate,
  retryRenewalUpdate,
} from '../../processes/subscription-messages.ts';
import { commerceError, notPermitted } from '../errors.ts';
import { hasEnded } from '../subscriptions/changes.ts';
import { openRenewalOrdersOf } from '../subscriptions/recovery.ts';
import type { SubscriptionWire } from '../subscriptions/schemas.ts';
import { liveSubscriptionsOf } from '../subscriptions/service.ts';

/**
 * Every change of a live subscription, whoever asks (the seller's /v1/subscriptions, finance's
 * dunning actions, the customer portal, a customer's deletion), is an update of the
 * subscription's workflow (`subscription:<id>`, started if it does not run): it applies the
 * change between renewals, and a refusal comes back as the API's error.
 */

/** Sends the subscription's workflow an update and answers the subscription (/v1's wire) it returns. */
export async function updateSubscriptionWorkflow<Arg>(
  temporal: Client,
  subscriptionId: string,
  update: UpdateDefinition<SubscriptionChangeResult, [Arg]>,
  arg: Arg,
): Promise<SubscriptionWire> {
  try {
    const result = await updateSubscription(temporal, subscriptionId, update, arg);
    // The workflow's activity serialized it with serializeSubscriptions.
    return result.subscription as SubscriptionWire;
  } catch (error) {
    throw refusalFromWorkflowFailure(error) ?? error;
  }
}

/** Why an `incomplete` subscription is not changed (Stripe lets one be canceled, nothing else). */
const awaitsFirstPayment =
  'This subscription waits for its first payment: until it is paid it can only be revoked.';

/**
 * A change of a subscription its caller found (scoped to the caller: the seller's organization,
 * the portal's customer); an ended one is refused without Temporal, and so are the seats it
 * already has (the change itself answers them unchanged: a retried activity finds them so).
 */
export function changeSubscription(
  temporal: Client,
  subscription: Subscription,
  change: SubscriptionChange,
): Promise<SubscriptionWire> {
  if (hasEnded(subscription)) throw commerceError('AlreadyCanceledSubscription');
  // Its checkout's workflow starts it once paid: until then only a revoke reaches its workflow.
  if (subscription.status === 'incomplete' && change.kind !== 'revoke') {
    throw notPermitted(awaitsFirstPayment);
  }
  if (change.kind === 'seats' && subscription.seats === change.seats) {
    throw invalidField(['body', 'seats'], `The subscription already has ${change.seats} seats.`);
  }
  return updateSubscriptionWorkflow(temporal, subscription.id, changeSubscriptionUpdate, change);
}

/**
 * Ends every live subscription of a customer now (a revoke: no renewal, no retry of a failed
 * one), each through its workflow, which then revokes the benefits it gave. One that ended
 * meanwhile is as asked; any other refusal (one is being renewed: SubscriptionLocked) stops
 * here, before the caller goes on.
 */
export async function revokeSubscriptionsOf(
  em: EntityManager,
  temporal: Client,
  customerId: string,
): Promise<void> {
  for (const subscription of await liveSubscriptionsOf(em, customerId)) {
    try {
      await changeSubscription(temporal, subscription, {
        kind: 'revoke',
        reason: null,
        comment: null,
      });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'AlreadyCanceledSubscription')) throw error;
    }
  }
}

/**
 * A card the customer just saved pays their failed renewals at once: each open renewal order is
 * retried with it through its subscription's workflow (as the portal's "pay now" does), and a
 * paid one ends its dunning. A renewal already being charged, or settled meanwhile, is left as
 * it is; a decline leaves the dunning schedule as it was.
 */
export async function retryFailedRenewalsWith(
  em: EntityManager,
  temporal: Client,
  customerId: string,
  paymentMethodId: string,
): Promise<RenewalRetryOutcome[]> {
  const outcomes: RenewalRetryOutcome[] = [];
  for (const { subscriptionId, orderId } of await openRenewalOrdersOf(em, customerId)) {
    try {
      outcomes.push(
        await updateSubscription(temporal, subscriptionId, retryRenewalUpdate, {
          orderId,
          paymentMethod: paymentMethodId,
        }),
      );
    } catch (error) {
      const refusal = refusalFromWorkflowFailure(error) ?? error;
      const settledMeanwhile =
        refusal instanceof AppError &&
        (refusal.code === 'PaymentAlreadyInProgress' ||
          refusal.code === 'OrderNotEligibleForRetry');
      if (!settledMeanwhile) throw refusal;
    }
  }
  return outcomes;
}
