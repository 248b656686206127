import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PaymentAlreadyInProgress } from '@polar-sh/sdk/models/errors/paymentalreadyinprogress.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { testCards } from '../commerce/orders/testing.ts';
import {
  advanceTestClock,
  saveCard,
  subscribeOnTestClock,
} from '../commerce/subscriptions/testing.ts';
import {
  callV1,
  createSeller,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../commerce/testing.ts';
import { Order, Payment, Subscription } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';

// The in-process workers log every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

/**
 * A failed renewal fixed outside the dunning schedule, through the subscription's workflow: the
 * customer from the portal (a new card, or authenticating the payment their bank held back),
 * finance's "retry now". Neither takes the place of the next scheduled retry.
 */
describe('recovering a failed renewal, on test clocks', { concurrency: true }, () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

  /**
   * A new customer subscribes on a clock frozen at `startAt`, the saved card becomes `card`,
   * and the renewal a month later is declined: answers the subscription, its open renewal
   * order, the customer's email and a portal session of theirs.
   */
  async function declinedRenewal(startAt: string, renewAt: string, card: string) {
    const plan = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1000 }],
    });
    const { subscriptionId, clockId, email } = await subscribeOnTestClock(
      api,
      seller,
      plan.id,
      startAt,
    );
    await saveCard(api, subscriptionId, card);
    await advanceTestClock(api, seller, clockId, renewAt);
    const pastDue = await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.status === 'past_due',
      { what: `subscription ${subscriptionId} past due`, timeoutMs: 90_000 },
    );
    const [order] = await api.orm.em
      .fork()
      .find(Order, { subscription: subscriptionId, billingReason: 'subscription_cycle' });
    assert.ok(order);
    const session = await seller.polar.customerSessions.create({ customerId: pastDue.customerId });
    return { subscriptionId, clockId, email, orderId: order.id, token: session.token };
  }

  const row = (subscriptionId: string) =>
    api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);

  const paymentsOf = async (orderId: string) =>
    (
      await api.orm.em
        .fork()
        .find(Payment, { order: orderId }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
    ).map((payment) => payment.status);

  const confirmPayment = (
    token: string,
    orderId: string,
    paymentMethodId?: string,
    confirmationTokenId?: string,
  ) =>
    seller.polar.customerPortal.orders.confirmRetryPayment(
      { customerSession: token },
      {
        id: orderId,
        customerOrderConfirmPayment: {
          ...(paymentMethodId && { paymentMethodId }),
          ...(confirmationTokenId && { confirmationTokenId }),
        },
      },
    );

  it('keeps the dunning schedule through manual retries; the customer’s new card pays it', async () => {
    const { subscriptionId, clockId, email, orderId, token } = await declinedRenewal(
      '2027-05-10T09:00:00.000Z',
      '2027-06-10T09:00:00.000Z',
      testCards.insufficientFunds,
    );
    // The mail's link signs the customer into the portal on this subscription.
    const mail = await waitForMail({ to: email, subject: /payment of .* failed/ });
    assert.match(mail.text, /insufficient funds/);
    const [link] = extractLinks(mail).filter((url) => url.includes('/portal/sign-in'));
    assert.ok(link, mail.text);

    // The customer's card declines too: said plainly, and dunning is untouched.
    const declined = await confirmPayment(token, orderId, testCards.declined);
    assert.deepEqual(declined, {
      status: 'failed',
      error: 'The bank declined the card without giving a reason.',
    });
    // Finance retries the saved card now: declined, answered plainly.
    const retried = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/subscriptions/${subscriptionId}/dunning/retry`,
    );
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.status, 'past_due');
    assert.deepEqual(retried.body.retry_result, {
      status: 'failed',
      decline_code: 'insufficient_funds',
      decline_reason: 'The card has insufficient funds.',
    });
    const kept = await row(subscriptionId);
    assert.equal(kept.dunningAttempts, 1, 'no scheduled attempt used up');
    assert.equal(iso(kept.nextPaymentAttemptAt), '2027-06-12T09:00:00.000Z');
    assert.equal(
      kept.stripePaymentMethodId,
      testCards.insufficientFunds,
      'a declined card is not kept',
    );
    assert.deepEqual(await paymentsOf(orderId), ['failed', 'failed', 'failed']);

    // The scheduled retry still runs on its day, as the second attempt.
    await advanceTestClock(api, seller, clockId, '2027-06-12T09:00:00.000Z');
    const second = await eventually(
      () => row(subscriptionId),
      (found) => found.dunningAttempts === 2,
      { what: 'the scheduled retry', timeoutMs: 90_000 },
    );
    // The next one a week after the first failure (the default dunning schedule).
    assert.equal(iso(second.nextPaymentAttemptAt), '2027-06-17T09:00:00.000Z');

    const paid = await confirmPayment(token, orderId, testCards.visa);
    assert.deepEqual(paid, { status: 'succeeded' });
    const recovered = await row(subscriptionId);
    assert.equal(recovered.status, 'active');
    assert.equal(recovered.stripePaymentMethodId, testCards.visa, 'the new card pays renewals');
    assert.deepEqual(
      [recovered.dunningAttempts, recovered.nextPaymentAttemptAt, recovered.recoveredBy],
      [0, null, 'customer'],
    );
    assert.equal(iso(recovered.currentPeriodEnd), '2027-07-10T09:00:00.000Z');
    assert.deepEqual(await paymentsOf(orderId), [
      'failed',
      'failed',
      'failed',
      'failed',
      'succeeded',
    ]);
    // The old retry days pass without a charge: dunning stopped.
    await advanceTestClock(api, seller, clockId, '2027-06-18T09:00:00.000Z');
    assert.deepEqual(await paymentsOf(orderId), [
      'failed',
      'failed',
      'failed',
      'failed',
      'succeeded',
    ]);
    const listed = await callV1(api, seller.token, 'GET', `/v1/subscriptions/${subscriptionId}`);
    assert.equal(listed.body.recovered_by, 'customer');
    assert.equal(listed.body.recovered_at, '2027-06-12T09:00:00.000Z');
  });

  it('lets the customer authenticate a renewal their bank held back, then settles it', async () => {
    const { subscriptionId, email, orderId, token } = await declinedRenewal(
      '2027-08-03T00:00:00.000Z',
      '2027-09-03T00:00:00.000Z',
      testCards.authenticationRequired,
    );
    const before = await row(subscriptionId);
    assert.equal(before.lastPaymentError?.code, 'authentication_required');
    const mail = await waitForMail({ to: email, subject: /^Authenticate your payment/ });
    assert.match(mail.text, /Authenticate this payment/);

    // The saved card, charged with its holder present this time: the bank asks for 3-D Secure.
    const pending = await confirmPayment(token, orderId);
    assert.equal(pending.status, 'requires_action');
    assert.match(pending.clientSecret ?? '', /^pi_[\w-]+_secret_/);
    await assert.rejects(confirmPayment(token, orderId, testCards.visa), PaymentAlreadyInProgress);
    const status = await seller.polar.customerPortal.orders.getPaymentStatus(
      { customerSession: token },
      { id: orderId },
    );
    assert.deepEqual(status, { status: 'pending', error: null });

    const paymentIntentId = (pending.clientSecret ?? '').split('_secret_')[0] ?? '';
    await stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '').authenticatePayment(
      paymentIntentId,
    );
    const active = await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.status === 'active',
      { what: 'the authenticated renewal settled', timeoutMs: 60_000 },
    );
    assert.equal(iso(active.currentPeriodEnd), '2027-10-03T00:00:00.000Z');
    const order = await api.orm.em.fork().findOneOrFail(Order, orderId);
    assert.equal(order.status, 'paid');
    assert.deepEqual(await paymentsOf(orderId), ['failed', 'succeeded']);
    assert.equal((await row(subscriptionId)).recoveredBy, 'customer');
  });

  it('pays with a card the customer types in the portal (a confirmation token), and keeps it', async () => {
    const { subscriptionId, orderId, token } = await declinedRenewal(
      '2027-10-07T00:00:00.000Z',
      '2027-11-07T00:00:00.000Z',
      testCards.declined,
    );
    const stripe = createStripeClient(api.config.stripe);
    const typed = await stripe.testHelpers.confirmationTokens.create({
      payment_method: testCards.visa,
    });
    const paid = await confirmPayment(token, orderId, undefined, typed.id);
    assert.deepEqual(paid, { status: 'succeeded' });
    const recovered = await row(subscriptionId);
    assert.equal(recovered.status, 'active');
    assert.match(recovered.stripePaymentMethodId ?? '', /^pm_/);
    assert.notEqual(recovered.stripePaymentMethodId, testCards.declined);
  });
});
