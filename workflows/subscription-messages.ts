import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ProrationBehavior } from '../db/entities/organization.ts';
import type {
  CancellationReason,
  SubscriptionPaymentError,
  SubscriptionStatus,
} from '../db/entities/subscription.ts';

/**
 * The messages of the subscription workflow (`subscription:<id>`, workflows/subscription.ts):
 * what the API, the finance actions and the test clocks send it, and what it answers. Every
 * change of a live subscription goes through the workflow, so a change never races a renewal.
 */

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
  | { kind: 'discount'; discountId: string | null }
  | { kind: 'trial_end'; trialEnd: string }
  | {
      kind: 'cancel_at_period_end';
      cancelAtPeriodEnd: boolean;
      reason: CancellationReason | null;
      comment: string | null;
    }
  | { kind: 'revoke'; reason: CancellationReason | null; comment: string | null };

/** What a change answers: the subscription as /v1 shows it, and the schedule that follows. */
export interface SubscriptionChangeResult {
  subscription: Record<string, unknown>;
  schedule: SubscriptionSchedule;
}

/**
 * Applies a change (an activity, one transaction; refusals come back as the API's error). The
 * validator refuses it with 409 SubscriptionLocked while a renewal or another change runs.
 */
export const changeSubscriptionUpdate = defineUpdate<
  SubscriptionChangeResult,
  [SubscriptionChange]
>('changeSubscription');

/**
 * Finance's actions on a failed renewal: charge again now, give up (the subscription ends as
 * the dunning settings say), or mark it resolved (paid outside Tollgate: the renewal order is
 * settled without a charge and the subscription is active again).
 */
export type DunningAction = 'retry_now' | 'cancel' | 'mark_resolved';

export const dunningActionUpdate = defineUpdate<SubscriptionChangeResult, [DunningAction]>(
  'dunningAction',
);

/** The subscription's test clock moved to `frozenTime` (ISO): timers due by then fire. */
export const clockAdvancedSignal =
  defineSignal<[{ testClockId: string; frozenTime: string }]>('clockAdvanced');

/** A period the workflow billed (or tried to), newest last. */
export interface BilledPeriod {
  start: string;
  end: string;
  orderId: string | null;
  status: 'paid' | 'failed' | 'free';
}

/** What the dashboard shows of a running subscription workflow. */
export interface SubscriptionWorkflowState {
  schedule: SubscriptionSchedule;
  /** What the workflow waits to do next, and when (ISO; by the test clock when it has one). */
  nextAction: {
    kind: 'trial_conversion' | 'renewal' | 'payment_retry' | 'end' | 'none';
    at: string | null;
  };
  /** The most recent periods (a bounded list: it is carried across continue-as-new). */
  periods: BilledPeriod[];
}

export const subscriptionStateQuery = defineQuery<SubscriptionWorkflowState>('state');
