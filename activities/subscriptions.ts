import {
  endSubscription,
  type LifecycleState,
  openRenewalOrder,
  recordRenewalDecline,
  renewalChargeKey,
  renewalOrderIdOf,
  type SubscriptionEnding,
  settleRenewalPaid,
  subscriptionLifecycleState,
  subscriptionResult,
} from '../commerce/subscriptions/lifecycle.ts';
import { Order, Payment, Subscription } from '../db/entities/index.ts';
import type { SubscriptionPaymentError } from '../db/entities/subscription.ts';
import type { Orm } from '../db/orm.ts';
import { formatMoney } from '../domain/money.ts';
import type { SubscriptionChangeResult } from '../domain/subscription-schedule.ts';
import * as templates from '../integrations/mail/templates.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { chargeSubscriptionCard } from '../integrations/stripe/payments.ts';
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

/** The steps of the subscription workflow, each one transaction (or one charge), each safe to run again. */
export function createSubscriptionActivities({
  orm,
  stripe,
  publicUrl,
}: SubscriptionActivityDependencies) {
  const payments = createPaymentActivities({ orm, stripe });

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
      const order = await openRenewalOrder(orm.em.fork(), subscriptionId, end);
      if (order.status !== 'pending') {
        // Settled by an earlier run of this step (its workflow task was lost): answered again.
        const paid = await orm.em
          .fork()
          .findOne(Payment, { order: order.orderId, status: 'succeeded' });
        return settle(renewal, { status: 'succeeded', paymentId: paid?.id ?? null, error: null });
      }
      if (order.totalAmount === 0) {
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
          amount: order.totalAmount,
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
      await openRenewalOrder(orm.em.fork(), renewal.subscriptionId, new Date(renewal.periodEnd));
      return settle(renewal, outcome);
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

    /** The mail telling the customer their renewal charge failed (`mailId`: one per attempt). */
    async paymentFailedMail({
      subscriptionId,
      orderId,
      mailId,
    }: {
      subscriptionId: string;
      orderId: string;
      mailId: string;
    }): Promise<EmailMessage> {
      const em = orm.em.fork();
      const subscription = await em.findOneOrFail(
        Subscription,
        { id: subscriptionId },
        { populate: ['customer', 'product', 'organization'] },
      );
      const order = await em.findOneOrFail(Order, { id: orderId });
      const content = templates.subscriptionPaymentFailed({
        organizationName: subscription.organization.name,
        productName: subscription.product.name,
        amount: formatMoney(order.totalAmount, order.currency),
        reason: subscription.lastPaymentError?.message ?? 'The payment failed.',
        nextAttemptAt: subscription.nextPaymentAttemptAt ?? null,
      });
      return { id: mailId, to: subscription.customer.email, ...content };
    },
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
