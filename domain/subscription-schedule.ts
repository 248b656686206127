import type { CancellationReason, ProrationBehavior, SubscriptionStatus } from './subscriptions.ts';

/**
 * What a subscription's workflow and the services that change the subscription hand each
 * other: its schedule, the changes asked through the API, and what a change answers.
 */

/**
 * How long a subscription whose first payment waits (or was declined) stays `incomplete` before
 * it becomes `incomplete_expired`, as Stripe: 23 hours after it was made.
 */
export const incompleteSubscriptionLifetimeMs = 23 * 60 * 60_000;

/** Why the last charge of a subscription failed, as Stripe said it. */
export interface SubscriptionPaymentError {
  code: string;
  message: string;
}

/** What the workflow needs of the subscription's row to know what to wait for next. */
export interface SubscriptionSchedule {
  status: SubscriptionStatus;
  /** ISO instants. */
  currentPeriodStart: string;
  currentPeriodEnd: string | null;
  trialEnd: string | null;
  cancelAtPeriodEnd: boolean;
  pastDueAt: string | null;
  dunningAttempts: number;
  nextPaymentAttemptAt: string | null;
  lastPaymentError: SubscriptionPaymentError | null;
  /** The sandbox clock the subscription follows, with its frozen time; null: real time. */
  testClock: { id: string; frozenTime: string } | null;
}

/** A change of the subscription asked through the API (PATCH or DELETE /v1/subscriptions/{id}). */
export type SubscriptionChange =
  | {
      kind: 'product';
      productId: string;
      /** Null: the organization's subscription_settings.proration_behavior. */
      prorationBehavior: ProrationBehavior | null;
    }
  | {
      kind: 'seats';
      /** The seats a seat-based price bills from now on (at least `minimumSeats`). */
      seats: number;
      /** Null: the organization's subscription_settings.proration_behavior. */
      prorationBehavior: ProrationBehavior | null;
    }
  | { kind: 'discount'; discountId: string | null }
  | { kind: 'trial_end'; trialEnd: string }
  | {
      kind: 'cancel_at_period_end';
      cancelAtPeriodEnd: boolean;
      reason: CancellationReason | null;
      comment: string | null;
    }
  | { kind: 'revoke'; reason: CancellationReason | null; comment: string | null };

/**
 * How a charge of the failed renewal asked outside the dunning schedule went (a customer's
 * retry from the portal, finance's "retry now"): paid, declined (`error`), waiting for the card
 * holder's 3-D Secure step (`clientSecret` confirms it on-session; `nextActionUrl`, when Stripe
 * names one, is the challenge's address), or still processing.
 */
export interface RenewalRetryOutcome {
  status: 'succeeded' | 'failed' | 'requires_action' | 'processing';
  clientSecret: string | null;
  /** Absent from outcomes recorded before it was carried. */
  nextActionUrl?: string | null;
  error: SubscriptionPaymentError | null;
}

/** What a change answers: the subscription as /v1 shows it, and the schedule that follows. */
export interface SubscriptionChangeResult {
  subscription: Record<string, unknown>;
  schedule: SubscriptionSchedule;
}
