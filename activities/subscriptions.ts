import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  attachRenewalPayment,
  endSubscription,
  type LifecycleState,
  openRenewalOrder,
  recordRenewalDecline,
  recordRetryDecline,
  renewalChargeKey,
  renewalOrderIdOf,
  retryableRenewalOrder,
  type SubscriptionEnding,
  settleRenewalPaid,
  subscriptionLifecycleState,
  subscriptionResult,
} from '../commerce/subscriptions/lifecycle.ts';
import { failedRenewalNotice } from '../commerce/subscriptions/recovery.ts';
import { invalidField } from '../core/errors.ts';
import { Payment } from '../db/entities/index.ts';
import type { SubscriptionPaymentError } from '../db/entities/subscription.ts';
import type { Orm } from '../db/orm.ts';
import type {
  RenewalRetryOutcome,
  SubscriptionChangeResult,
} from '../domain/subscription-schedule.ts';
import * as templates from '../integrations/mail/templates.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import {
  cancelWaitingPayment,
  chargeAttempt,
  chargeSubscriptionCard,
  paymentIdOf,
} from '../integrations/stripe/payments.ts';
import { recordOrderTaxTransaction } from '../integrations/stripe/tax-transactions.ts';
import { toActivityFailure } from '../processes/activity-errors.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import type { EmailMessage } from './mail/index.ts';
import { createPaymentActivities } from './payments.ts';

export type { LifecycleState };

export interface SubscriptionActivityDependencies {
  orm: Orm;
  stripe: StripeClient;
  /** Orders carry links to the hosted pages, under the API's public URL. */
  publicUrl: string;
}

/**
 * How a renewal charge went: paid (or nothing to pay), declined (dunning goes on), or still
 * processing (Stripe's webhook tells the workflow, which settles it with settleRenewalPayment).
 */
export interface RenewalResult {
  outcome: 'paid' | 'declined' | 'processing';
  orderId: string;
  paymentId: string | null;
  /** The decline's reason, for the mail. */
  paymentError: SubscriptionPaymentError | null;
  state: LifecycleState;
}

/** The renewal of one period: its end (ISO) and the charge attempt (1 the renewal, then retries). */
export interface RenewalAttempt {
  subscriptionId: string;
  periodEnd: string;
  attempt: number;
}

/** Stripe's final word on a charge attempt, or the workflow's when Stripe gave none in time. */
export interface RenewalPaymentOutcome {
  status: 'succeeded' | 'failed';
  paymentId: string | null;
  error: SubscriptionPaymentError | null;
}

/**
 * A charge of the failed renewal of the period ending `periodEnd` asked outside the dunning
 * schedule: a customer's retry from the portal (on-session: the card holder can authenticate),
 * or finance's "retry now" (off-session).
 */
export interface RenewalRetry {
  subscriptionId: string;
  periodEnd: string;
  /** The update that asked it: its charge's key, so a step run again charges once. */
  retryId: string;
  by: 'customer' | 'finance';
  /** The order the customer retries (refused unless it is the open renewal order). */
  orderId: string | null;
  /** `pm_…` or `ctoken_…`; null: the saved card. */
  paymentMethod: string | null;
}

/** How a retry went, the Payment it made and the card it charged. */
export interface RenewalRetryResult {
  outcome: RenewalRetryOutcome;
  orderId: string;
  paymentId: string | null;
  /** Stripe's PaymentIntent of the charge (null when none was made). */
  paymentIntentId: string | null;
  /** The card charged: the customer's becomes the subscription's once it paid. */
  paymentMethodId: string | null;
  state: LifecycleState;
}

/** The charge key of a retry: one PaymentIntent per update that asked it. */
const retryChargeKey = ({ subscriptionId, periodEnd, retryId }: RenewalRetry) =>
  `renewal:${subscriptionId}:${new Date(periodEnd).toISOString()}:retry:${retryId}`;

/** The steps of the subscription workflow, each one transaction (or one charge), each safe to run again. */
export function createSubscriptionActivities({
  orm,
  stripe,
  publicUrl,
}: SubscriptionActivityDependencies) {
  const payments = createPaymentActivities({ orm, stripe });

  /**
   * The paid renewal order's Stripe Tax transaction (after the order's commit), as far as Stripe
   * answers: a failure must not turn the paid renewal into a failed step (whose fallback would
   * report it declined), so it is logged and left to the upkeep's reconciliation, which records
   * what paid orders still owe.
   */
  async function recordTaxTransaction(orderId: string) {
    try {
      await recordOrderTaxTransaction({ orm, stripe }, orderId);
    } catch (error) {
      log.warn('Stripe Tax transaction of a paid renewal not recorded; the upkeep retries', {
        orderId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Writes a decided charge attempt onto the order and the subscription. */
  async function settle(
    { subscriptionId, periodEnd, attempt }: RenewalAttempt,
    { status, paymentId, error }: RenewalPaymentOutcome,
  ): Promise<RenewalResult> {
    const end = new Date(periodEnd);
    const orderId = renewalOrderIdOf(subscriptionId, end);
    if (status === 'succeeded') {
      const state = await settleRenewalPaid(
        orm.em.fork(),
        subscriptionId,
        end,
        paymentId,
        publicUrl,
      );
      await recordTaxTransaction(orderId);
      return { outcome: 'paid', orderId, paymentId, paymentError: null, state };
    }
    const paymentError = error ?? { code: 'payment_failed', message: 'The payment failed.' };
    const state = await recordRenewalDecline(
      orm.em.fork(),
      subscriptionId,
      end,
      attempt,
      paymentId,
      paymentError,
      publicUrl,
    );
    return { outcome: 'declined', orderId, paymentId, paymentError, state };
  }

  /** Writes a decided retry (see RenewalRetry): paid (recovered by its payer), or declined. */
  async function settleRetry(
    retry: RenewalRetry,
    { status, paymentId, error }: RenewalPaymentOutcome,
    paymentMethodId: string | null,
    paymentIntentId: string | null = null,
  ): Promise<RenewalRetryResult> {
    const { subscriptionId, by } = retry;
    const end = new Date(retry.periodEnd);
    const orderId = renewalOrderIdOf(subscriptionId, end);
    const charged = { orderId, paymentId, paymentIntentId, paymentMethodId };
    if (status === 'succeeded') {
      const recovery = { by, paymentMethodId: by === 'customer' ? paymentMethodId : null };
      const state = await settleRenewalPaid(
        orm.em.fork(),
        subscriptionId,
        end,
        paymentId,
        publicUrl,
        recovery,
      );
      await recordTaxTransaction(orderId);
      return { outcome: { status, clientSecret: null, error: null }, ...charged, state };
    }
    const paymentError = error ?? { code: 'payment_failed', message: 'The payment failed.' };
    const state = await recordRetryDecline(
      orm.em.fork(),
      subscriptionId,
      end,
      paymentId,
      paymentError,
      publicUrl,
    );
    return {
      outcome: { status: 'failed', clientSecret: null, error: paymentError },
      ...charged,
      state,
    };
  }

  /** Charges a retry once (its own idempotency key); refusals come back as the API's errors. */
  async function chargeRetry(retry: RenewalRetry): Promise<RenewalRetryResult> {
    const { subscriptionId } = retry;
    const end = new Date(retry.periodEnd);
    const order = await retryableRenewalOrder(
      orm.em.fork(),
      subscriptionId,
      end,
      retry.orderId,
      stripe,
    );
    const paymentMethod = retry.paymentMethod ?? order.stripePaymentMethodId;
    if (!paymentMethod) {
      const error = { code: 'no_payment_method', message: 'No payment method is saved.' };
      return settleRetry(retry, { status: 'failed', paymentId: null, error }, null);
    }
    const stripeCustomerId =
      order.stripeCustomerId ??
      (await payments.ensureStripeCustomer({ customerId: order.customerId }));
    const idempotencyKey = retryChargeKey(retry);
    const charged = await chargeAttempt(
      { orm, stripe },
      {
        paymentId: paymentIdOf(idempotencyKey),
        idempotencyKey,
        organizationId: order.organizationId,
        checkoutId: null,
        workflowId: workflowIds.subscription(subscriptionId),
        amount: order.amountToCharge,
        currency: order.currency,
        stripeCustomerId,
        paymentMethodOrToken: paymentMethod,
        // The customer's card is kept for the renewals that follow; finance's runs off-session.
        saveForOffSession: retry.by === 'customer',
        offSession: retry.by === 'finance',
      },
    );
    const { paymentId, paymentIntentId, paymentMethodId } = charged;
    if (charged.status === 'succeeded' || charged.status === 'failed') {
      const error = {
        code: charged.declineCode ?? 'payment_failed',
        message: charged.message ?? 'The payment failed.',
      };
      const outcome = { status: charged.status, paymentId, error };
      return settleRetry(retry, outcome, paymentMethodId, paymentIntentId);
    }
    // Undecided: the Payment shows on the order meanwhile (the portal's payment status).
    await attachRenewalPayment(orm.em.fork(), subscriptionId, end, paymentId);
    const clientSecret = charged.authentication?.clientSecret ?? null;
    const nextActionUrl = charged.authentication?.nextActionUrl ?? null;
    return {
      outcome: { status: charged.status, clientSecret, nextActionUrl, error: null },
      orderId: order.orderId,
      paymentId,
      paymentIntentId,
      paymentMethodId,
      state: await subscriptionLifecycleState(orm.em.fork(), subscriptionId),
    };
  }

  return {
    /** The subscription's schedule and whose benefits it carries, read from its row. */
    loadSubscriptionState({ subscriptionId }: { subscriptionId: string }): Promise<LifecycleState> {
      return subscriptionLifecycleState(orm.em.fork(), subscriptionId);
    },

    /**
     * Renews the period ending `periodEnd` (trial conversion, renewal, dunning retry): its order
     * (once), then charge `attempt` of the saved card off-session under its own idempotency key
     * (nothing to charge: paid at once), then the outcome written (see settle). Stripe's 5xx and
     * timeouts throw, for the retry policy; a worker killed midway finds the same order and the
     * same PaymentIntent when it runs again.
     */
    async renewSubscription(renewal: RenewalAttempt): Promise<RenewalResult> {
      const { subscriptionId, periodEnd, attempt } = renewal;
      const end = new Date(periodEnd);
      const order = await openRenewalOrder(orm.em.fork(), subscriptionId, end, stripe);
      if (order.status !== 'pending') {
        // Settled by an earlier run of this step (its workflow task was lost): answered again.
        const paid = await orm.em
          .fork()
          .findOne(Payment, { order: order.orderId, status: 'succeeded' });
        return settle(renewal, { status: 'succeeded', paymentId: paid?.id ?? null, error: null });
      }
      if (order.amountToCharge === 0) {
        return settle(renewal, { status: 'succeeded', paymentId: null, error: null });
      }
      const paymentMethod = order.stripePaymentMethodId;
      if (!paymentMethod) {
        return settle(renewal, {
          status: 'failed',
          paymentId: null,
          error: { code: 'no_payment_method', message: 'No payment method is saved.' },
        });
      }
      const stripeCustomerId =
        order.stripeCustomerId ??
        (await payments.ensureStripeCustomer({ customerId: order.customerId }));
      const charged = await chargeSubscriptionCard(
        { orm, stripe },
        {
          workflowId: workflowIds.subscription(subscriptionId),
          organizationId: order.organizationId,
          idempotencyKey: renewalChargeKey(subscriptionId, end, attempt),
          amount: order.amountToCharge,
          currency: order.currency,
          stripeCustomerId,
          paymentMethodId: paymentMethod,
        },
      );
      if (charged.status === 'succeeded' || charged.status === 'failed') {
        return settle(renewal, {
          status: charged.status,
          paymentId: charged.paymentId,
          error: {
            code: charged.declineCode ?? 'payment_failed',
            message: charged.message ?? 'The payment failed.',
          },
        });
      }
      return {
        outcome: 'processing',
        orderId: order.orderId,
        paymentId: charged.paymentId,
        paymentError: null,
        state: await subscriptionLifecycleState(orm.em.fork(), subscriptionId),
      };
    },

    /**
     * Writes the outcome of a charge attempt decided after renewSubscription answered (Stripe's
     * webhook, or no answer from Stripe at all: `processor_unavailable`), or finance's word that
     * the period is paid outside Tollgate (succeeded without a payment). The order is opened
     * first if the failed attempt never got that far.
     */
    async settleRenewalPayment({
      outcome,
      ...renewal
    }: RenewalAttempt & { outcome: RenewalPaymentOutcome }): Promise<RenewalResult> {
      const periodEnd = new Date(renewal.periodEnd);
      await openRenewalOrder(orm.em.fork(), renewal.subscriptionId, periodEnd, stripe);
      return settle(renewal, outcome);
    },

    /**
     * Charges the open renewal order at once, outside the dunning schedule (see RenewalRetry):
     * decided at once (paid: recovered, the customer's card kept; declined: dunning unchanged),
     * or waiting for the card holder (`requires_action`, with the PaymentIntent's client secret)
     * or for Stripe (`processing`); settleRenewalRetry then writes the outcome.
     */
    async retryRenewalPayment(retry: RenewalRetry): Promise<RenewalRetryResult> {
      try {
        return await chargeRetry(retry);
      } catch (error) {
        // Stripe refusing the customer's card outright (another customer's, unknown, expired
        // token) is their input's fault: a 422, not a failure of the retry.
        const refusedCard =
          retry.by === 'customer' &&
          error instanceof ApplicationFailure &&
          error.nonRetryable &&
          error.type?.startsWith('Stripe');
        if (!refusedCard) return toActivityFailure(error);
        const field = retry.paymentMethod?.startsWith('ctoken_')
          ? 'confirmation_token_id'
          : 'payment_method_id';
        return toActivityFailure(invalidField(['body', field], 'This card cannot be used.'));
      }
    },

    /**
     * Gives up on a retry still waiting for its card holder (or Stripe) when the workflow's
     * wait ran out: the PaymentIntent canceled, so a late authentication cannot take money for
     * a renewal no longer waiting for it (one that succeeded meanwhile is settled paid).
     */
    async abandonRenewalRetry({
      paymentId,
      paymentIntentId,
      paymentMethodId,
      ...retry
    }: RenewalRetry & {
      paymentId: string;
      paymentIntentId: string;
      paymentMethodId: string | null;
    }): Promise<RenewalRetryResult> {
      const idempotencyKey = `${retryChargeKey(retry)}:abandon`;
      const final = await cancelWaitingPayment(
        { orm, stripe },
        { paymentId, paymentIntentId, idempotencyKey },
      );
      const outcome: RenewalPaymentOutcome =
        final?.status === 'succeeded'
          ? { status: 'succeeded', paymentId, error: null }
          : {
              status: 'failed',
              paymentId,
              error: { code: 'payment_timeout', message: 'The payment was not completed in time.' },
            };
      return settleRetry(retry, outcome, paymentMethodId, paymentIntentId);
    },

    /** Writes the outcome of a retry decided after retryRenewalPayment answered. */
    settleRenewalRetry({
      outcome,
      paymentMethodId,
      ...retry
    }: RenewalRetry & {
      outcome: RenewalPaymentOutcome;
      paymentMethodId: string | null;
    }): Promise<RenewalRetryResult> {
      return settleRetry(retry, outcome, paymentMethodId);
    },

    /** The subscription as /v1 shows it, and its schedule: a finance action's answer. */
    describeSubscription({
      subscriptionId,
    }: {
      subscriptionId: string;
    }): Promise<SubscriptionChangeResult> {
      return subscriptionResult(orm.em.fork(), subscriptionId, publicUrl);
    },

    /** Ends the subscription (see endSubscription). */
    endSubscription({
      subscriptionId,
      ending,
    }: {
      subscriptionId: string;
      ending: SubscriptionEnding;
    }): Promise<LifecycleState> {
      return endSubscription(orm.em.fork(), subscriptionId, ending, publicUrl);
    },

    /**
     * The mail telling the customer their renewal charge failed (`mailId`: one per attempt),
     * with the link that opens their portal on the subscription to fix it.
     */
    async paymentFailedMail({
      subscriptionId,
      orderId,
      mailId,
    }: {
      subscriptionId: string;
      orderId: string;
      mailId: string;
    }): Promise<EmailMessage> {
      const { to, ...facts } = await failedRenewalNotice(
        orm.em.fork(),
        subscriptionId,
        publicUrl,
        orderId,
      );
      return { id: mailId, to, ...templates.subscriptionPaymentFailed(facts) };
    },
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
