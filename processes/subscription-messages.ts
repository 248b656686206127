import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  RenewalRetryOutcome,
  SubscriptionChange,
  SubscriptionChangeResult,
  SubscriptionSchedule,
} from '../domain/subscription-schedule.ts';

/**
 * The messages of the subscription workflow (`subscription:<id>`, workflows/subscription.ts):
 * what the API, the finance actions and the test clocks send it, and what it answers. Every
 * change of a live subscription goes through the workflow, so a change never races a renewal.
 */

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

/**
 * The customer's retry of the failed renewal from the portal (customerPortal.orders
 * .confirmRetryPayment): the open renewal order `orderId` charged at once, on-session, with
 * `paymentMethod` (`pm_…` or `ctoken_…`; null: the saved card), which becomes the card later
 * renewals charge once it pays. Paid, dunning stops; declined, the dunning schedule stays as it
 * was (a retry asked outside it never takes the place of the next scheduled one). The
 * validator refuses it with 409 PaymentAlreadyInProgress while another charge runs or awaits
 * the card holder, 422 OrderNotEligibleForRetry when nothing is past due.
 */
export interface RenewalRetryRequest {
  orderId: string;
  paymentMethod: string | null;
}

export const retryRenewalUpdate = defineUpdate<RenewalRetryOutcome, [RenewalRetryRequest]>(
  'retryRenewal',
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

/** The input of the subscription workflow (`subscription:<id>`). */
export interface SubscriptionInput {
  subscriptionId: string;
  /** What a run hands the next one when it continues as new. */
  carried?: {
    periods: BilledPeriod[];
    /** The test clock's time (ISO) the last run knew; null without a clock. */
    clockTime: string | null;
  };
}

export const subscriptionStateQuery = defineQuery<SubscriptionWorkflowState>('state');
