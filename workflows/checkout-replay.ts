import type { Client } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { CheckoutActivities, ConfirmedCheckout } from '../activities/checkouts.ts';
import type { PaymentActivities, PaymentAttemptResult } from '../activities/payments.ts';
import { checkout, confirmCheckoutUpdate } from './checkout.ts';
import { paymentOutcomeSignal } from './payment-outcome.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

const checkoutId = 'replay-checkout';

const confirmed: ConfirmedCheckout = {
  checkoutId,
  organizationId: 'replay-organization',
  customerId: 'replay-customer',
  productId: 'replay-product',
  productPriceId: 'replay-price',
  discountId: null,
  amount: 2500,
  discountAmount: 0,
  netAmount: 2500,
  totalAmount: 2500,
  currency: 'usd',
  isPaymentRequired: true,
  isPaymentSetupRequired: false,
  isRecurring: false,
  confirmationTokenId: 'pm_card_visa',
};

const charge = (attempt: number, status: PaymentAttemptResult['status']) => ({
  paymentId: `replay-payment-${attempt}`,
  paymentIntentId: `pi_replay_${attempt}`,
  status,
  declineCode: status === 'failed' ? 'generic_decline' : null,
  message: status === 'failed' ? 'Your card was declined.' : null,
});

/**
 * A paid checkout's whole path, recorded without database or Stripe: a confirm whose card is
 * declined at once, a second confirm whose charge waits for the webhook's outcome (a signal),
 * then the order and the benefit grants.
 */
export async function recordPaidCheckout(client: Client): Promise<string> {
  const workflowId = 'replay:checkout-paid';
  const taskQueue = 'replay-checkout-paid';
  let declined: () => void = () => {};
  const declinedOnce = new Promise<void>((resolve) => {
    declined = resolve;
  });
  const activities: CheckoutActivities &
    Pick<PaymentActivities, 'ensureStripeCustomer' | 'createCheckoutPayment'> &
    Pick<BenefitGrantActivities, 'requestBenefitGrants'> = {
    confirmCheckout: async () => confirmed,
    expireCheckout: async () => undefined,
    failCheckoutPayment: async () => declined(),
    completeCheckout: async () => ({
      organizationId: confirmed.organizationId,
      customerId: confirmed.customerId,
      productId: confirmed.productId,
      orderId: 'replay-order',
      subscriptionId: null,
    }),
    ensureStripeCustomer: async () => 'cus_replay',
    createCheckoutPayment: async ({ attempt }) =>
      charge(attempt, attempt === 1 ? 'failed' : 'processing'),
    requestBenefitGrants: async () => undefined,
  };
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    const handle = await client.workflow.start(checkout, {
      workflowId,
      taskQueue,
      args: [{ checkoutId, expiresAt: new Date(Date.now() + 3600_000).toISOString() }],
    });
    const body = { customer_email: 'buyer@example.com', confirmation_token_id: 'pm_card_visa' };
    await handle.executeUpdate(confirmCheckoutUpdate, { args: [body] });
    await declinedOnce;
    await handle.executeUpdate(confirmCheckoutUpdate, { args: [body] });
    const { paymentId, paymentIntentId } = charge(2, 'succeeded');
    await handle.signal(paymentOutcomeSignal, {
      paymentId,
      paymentIntentId,
      status: 'succeeded',
      declineCode: null,
      message: null,
      cardBrand: 'visa',
      cardLast4: '4242',
    });
    await handle.result();
  });
  return workflowId;
}
