import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { AlreadyActiveSubscriptionError } from '@polar-sh/sdk/models/errors/alreadyactivesubscriptionerror.js';
import { ExpiredCheckoutError } from '@polar-sh/sdk/models/errors/expiredcheckouterror.js';
import { NotOpenCheckout } from '@polar-sh/sdk/models/errors/notopencheckout.js';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startApiServer } from '../api/server.ts';
import { createCheckout } from '../commerce/checkouts/create.ts';
import { checkoutCreateInput } from '../commerce/checkouts/schemas.ts';
import {
  buy,
  buyerClient,
  buyerDetails,
  ordersOfCheckout,
  settledCheckout,
  testCards,
} from '../commerce/orders/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../commerce/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { Checkout, OutboxEvent, Payment, Subscription } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { stripeSignature, stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { workersOnOwnQueue } from '../temporal/testing.ts';
import { checkout as checkoutWorkflow } from './checkout.ts';

// The in-process workers log every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

describe('the checkout workflow, end to end', { concurrency: true }, () => {
  let api: TestApi;
  let seller: Seller;
  let temporal: Client;
  let buyer: Polar;
  let ebook: { id: string; benefitId: string };
  let freebieId: string;
  let tipJarId: string;
  let fullDiscountId: string;

  before(async () => {
    api = await startCommerceApi();
    temporal = api.temporal;
    seller = await createSeller(api);
    buyer = buyerClient(api);
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Reader community',
      properties: { note: 'Welcome in!' },
    });
    const product = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
    });
    await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    ebook = { id: product.id, benefitId: benefit.id };
    freebieId = (
      await seller.polar.products.create({ name: 'Sample', prices: [{ amountType: 'free' }] })
    ).id;
    tipJarId = (
      await seller.polar.products.create({
        name: 'Tip jar',
        prices: [{ amountType: 'custom', minimumAmount: 500, maximumAmount: 10_000 }],
      })
    ).id;
    fullDiscountId = (
      await seller.polar.discounts.create({
        name: 'On the house',
        type: 'percentage',
        basisPoints: 10_000,
        duration: 'once',
      })
    ).id;
  });
  after(() => api.close());

  /** The names of the activities the checkout's workflow ran, in order (local ones too). */
  async function activitiesRun(checkoutId: string): Promise<string[]> {
    const history = await temporal.workflow
      .getHandle(workflowIds.checkout(checkoutId))
      .fetchHistory();
    return (history.events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (scheduled) return [scheduled];
      // A local activity leaves a marker whose details name it.
      const marker = event.markerRecordedEventAttributes;
      const details = marker?.details?.data?.payloads?.[0]?.data;
      if (marker?.markerName !== 'core_local_activity' || !details) return [];
      return [
        (JSON.parse(Buffer.from(details).toString()) as { activity_type: string }).activity_type,
      ];
    });
  }

  const workflowResult = (checkoutId: string) =>
    temporal.workflow.getHandle(workflowIds.checkout(checkoutId)).result();

  const paymentsOf = (checkoutId: string) =>
    api.orm.em.fork().find(Payment, { checkoutId }, { orderBy: { createdAt: 'asc' } });

  const eventTypesOf = async (resourceId: string) =>
    (
      await api.orm.em
        .fork()
        .find(OutboxEvent, { data: { id: resourceId } }, { orderBy: { createdAt: 'asc' } })
    ).map((event) => event.type);

  it('one-time paid: charged once, a paid order, the benefit granted', async () => {
    const { checkout, order } = await buy(api, seller, ebook.id, buyerDetails(testCards.visa));
    assert.equal(checkout.status, 'succeeded');
    assert.equal(order?.status, 'paid');
    assert.equal(order?.totalAmount, 2500);
    assert.equal(order?.billingReason, 'purchase');
    const payments = await paymentsOf(checkout.id);
    assert.deepEqual(
      payments.map((payment) => [payment.status, payment.amount, payment.order?.id]),
      [['succeeded', 2500, order?.id]],
    );
    assert.equal(await workflowResult(checkout.id), 'succeeded');
    assert.deepEqual(await activitiesRun(checkout.id), [
      'confirmCheckout',
      'ensureStripeCustomer',
      'createCheckoutPayment',
      'completeCheckout',
      'grantCheckoutBenefits',
    ]);
    assert.deepEqual(await eventTypesOf(order?.id ?? ''), ['order.created', 'order.paid']);
    assert.ok((await eventTypesOf(checkout.id)).includes('checkout.updated'));
    const state = await eventually(
      () => seller.polar.customers.getState({ id: order?.customerId ?? '' }),
      (customerState) => customerState.grantedBenefits.length > 0,
      { what: 'the benefit granted' },
    );
    assert.deepEqual(
      state.grantedBenefits.map((grant) => grant.benefitId),
      [ebook.benefitId],
    );
    // A custom benefit is granted in the checkout's own workflow: none of its own was started.
    const grantWorkflow = temporal.workflow.getHandle(
      workflowIds.benefitGrant(order?.customerId ?? '', ebook.benefitId),
    );
    await assert.rejects(grantWorkflow.describe(), WorkflowNotFoundError);
  });

  it('free: no payment, a paid order of nothing', async () => {
    const { checkout, order } = await buy(api, seller, freebieId, {
      customerEmail: `free-${randomUUID()}@example.com`,
    });
    assert.equal(checkout.status, 'succeeded');
    assert.equal(order?.totalAmount, 0);
    assert.equal(order?.status, 'paid');
    assert.deepEqual(await paymentsOf(checkout.id), []);
    assert.ok(!(await activitiesRun(checkout.id)).includes('createCheckoutPayment'));
  });

  it("pay what you want: the buyer's amount is charged and ordered", async () => {
    const { checkout, order } = await buy(api, seller, tipJarId, buyerDetails(), {
      amount: 1500,
    });
    assert.equal(checkout.status, 'succeeded');
    assert.deepEqual([order?.subtotalAmount, order?.totalAmount], [1500, 1500]);
    assert.deepEqual(
      (await paymentsOf(checkout.id)).map((payment) => payment.amount),
      [1500],
    );
  });

  it('100% discount: nothing to pay, the discount on the order', async () => {
    const { checkout, order } = await buy(api, seller, ebook.id, buyerDetails(), {
      discountId: fullDiscountId,
    });
    assert.equal(checkout.status, 'succeeded');
    assert.deepEqual(
      [order?.subtotalAmount, order?.discountAmount, order?.totalAmount, order?.discountId],
      [2500, 2500, 0, fullDiscountId],
    );
    assert.deepEqual(await paymentsOf(checkout.id), []);
  });

  const subscriptionOf = (id: string | null | undefined) =>
    api.orm.em.fork().findOneOrFail(Subscription, { id: id ?? '' });

  /** How many runs of the subscription's workflow Temporal knows of, once it knows of one. */
  const subscriptionWorkflowRuns = (subscriptionId: string) =>
    eventually(
      async () =>
        (
          await temporal.workflow.count(
            `WorkflowId = "${workflowIds.subscription(subscriptionId)}"`,
          )
        ).count,
      (runs) => runs > 0,
      { what: `the workflow of subscription ${subscriptionId}` },
    );

  /**
   * The checkout's workflow succeeded and started its subscription's workflow, on its own task
   * queue: one run of it.
   */
  async function assertSubscriptionStartedOnce(checkoutId: string, subscriptionId: string) {
    assert.equal(await workflowResult(checkoutId), 'succeeded');
    const starts = (await activitiesRun(checkoutId)).filter(
      (name) => name === 'startCheckoutSubscription',
    );
    assert.equal(starts.length, 1);
    assert.equal(await subscriptionWorkflowRuns(subscriptionId), 1);
    const taskQueueOf = async (workflowId: string) =>
      (await temporal.workflow.getHandle(workflowId).describe()).taskQueue;
    assert.equal(
      await taskQueueOf(workflowIds.subscription(subscriptionId)),
      await taskQueueOf(workflowIds.checkout(checkoutId)),
    );
  }

  /**
   * A checkout of the product confirmed with a declined card: failed with the processor's code
   * and message, as its row and the buyer's details (to confirm again) are answered.
   */
  async function confirmedWithDeclinedCard(productId: string) {
    const created = await seller.polar.checkouts.create({ products: [productId] });
    const details = buyerDetails(testCards.declined);
    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: details,
    });
    assert.equal((await settledCheckout(seller, created.id)).status, 'failed');
    const row = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.equal(row.paymentError?.code, 'generic_decline');
    assert.match(row.paymentError?.message ?? '', /declined/i);
    return { created, details, row };
  }

  /** A free monthly plan of `owner`: subscribed to without a card. */
  const freePlan = (owner: Seller) =>
    owner.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'free' }],
    });

  const trialPlan = () =>
    seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 7,
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });

  it('a paid subscription: charged once, its card kept for renewals, its workflow started once', async () => {
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { checkout, order } = await buy(api, seller, plan.id, buyerDetails(testCards.visa));
    assert.equal(checkout.status, 'succeeded');
    assert.equal(order?.billingReason, 'subscription_create');
    assert.deepEqual(
      (await paymentsOf(checkout.id)).map((payment) => [payment.status, payment.amount]),
      [['succeeded', 900]],
    );
    const subscription = await subscriptionOf(order?.subscriptionId);
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.stripePaymentMethodId, testCards.visa);
    await assertSubscriptionStartedOnce(checkout.id, subscription.id);
  });

  it('a free subscription: no card asked or saved, its workflow started', async () => {
    const plan = await freePlan(seller);
    const { checkout, order } = await buy(api, seller, plan.id, {
      customerEmail: `free-plan-${randomUUID()}@example.com`,
    });
    assert.equal(checkout.status, 'succeeded');
    const subscription = await subscriptionOf(order?.subscriptionId);
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.stripePaymentMethodId, null);
    assert.ok(!(await activitiesRun(checkout.id)).includes('ensureStripeCustomer'));
    await assertSubscriptionStartedOnce(checkout.id, subscription.id);
  });

  it('a trial: its card saved through a SetupIntent without a charge, trialing', async () => {
    const plan = await trialPlan();
    const { checkout, order } = await buy(api, seller, plan.id, buyerDetails(testCards.visa));
    assert.equal(checkout.status, 'succeeded');
    assert.deepEqual(await paymentsOf(checkout.id), []);
    const subscription = await subscriptionOf(order?.subscriptionId);
    assert.equal(subscription.status, 'trialing');
    assert.equal(subscription.stripePaymentMethodId, testCards.visa);
    assert.equal(await workflowResult(checkout.id), 'succeeded');
    assert.deepEqual(await activitiesRun(checkout.id), [
      'confirmCheckout',
      'ensureStripeCustomer',
      'setUpCheckoutPaymentMethod',
      'completeCheckout',
      'startCheckoutSubscription',
      'grantCheckoutBenefits',
    ]);
  });

  it('a trial whose card setup is declined fails; a card that attaches is then saved', async () => {
    const { created, details, row } = await confirmedWithDeclinedCard((await trialPlan()).id);
    assert.equal(row.subscription, null);
    assert.deepEqual(await ordersOfCheckout(seller, created.id), []);

    // A card that Stripe saves but never charges is still saved: the renewal will tell.
    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: { ...details, confirmationTokenId: 'pm_card_chargeCustomerFail' },
    });
    const succeeded = await settledCheckout(seller, created.id, ['succeeded']);
    const subscription = await subscriptionOf(succeeded.subscriptionId);
    assert.equal(subscription.stripePaymentMethodId, 'pm_card_chargeCustomerFail');
  });

  it('refuses a second subscription to a buyer matched at confirm, the checkout left open', async () => {
    const plan = await freePlan(seller);
    const details = { customerEmail: `subscriber-${randomUUID()}@example.com` };
    const { order } = await buy(api, seller, plan.id, details);
    assert.ok(order?.subscriptionId);
    const again = await seller.polar.checkouts.create({ products: [plan.id] });
    await assert.rejects(
      buyer.checkouts.clientConfirm({
        clientSecret: again.clientSecret,
        checkoutConfirmStripe: details,
      }),
      AlreadyActiveSubscriptionError,
    );
    assert.equal((await seller.polar.checkouts.get({ id: again.id })).status, 'open');
    assert.deepEqual(await ordersOfCheckout(seller, again.id), []);
  });

  it('subscribes a buyer twice when the organization allows several subscriptions', async () => {
    const generous = await createSeller(api);
    await generous.polar.organizations.update({
      id: generous.organizationId,
      organizationUpdate: {
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          allowCustomerUpdates: true,
          prorationBehavior: 'prorate',
        },
      },
    });
    const plan = await freePlan(generous);
    const details = { customerEmail: `subscriber-${randomUUID()}@example.com` };
    const first = await buy(api, generous, plan.id, details);
    const second = await buy(api, generous, plan.id, details);
    assert.equal(second.checkout.status, 'succeeded');
    assert.equal(second.order?.customerId, first.order?.customerId);
    assert.notEqual(second.order?.subscriptionId, first.order?.subscriptionId);
  });

  it('a subscription with a trial: trialing, nothing charged, in the customer state', async () => {
    const plan = await trialPlan();
    const { checkout, order } = await buy(api, seller, plan.id);
    assert.equal(checkout.status, 'succeeded');
    assert.equal(order?.billingReason, 'subscription_create');
    assert.equal(order?.totalAmount, 0);
    assert.deepEqual(await paymentsOf(checkout.id), []);
    assert.equal(checkout.subscriptionId, order?.subscriptionId);
    const state = await seller.polar.customers.getState({ id: order?.customerId ?? '' });
    const [subscription] = state.activeSubscriptions;
    assert.equal(subscription?.status, 'trialing');
    const trialDays =
      ((subscription?.trialEnd?.getTime() ?? 0) - (subscription?.trialStart?.getTime() ?? 0)) /
      86_400_000;
    assert.equal(trialDays, 7);
    assert.deepEqual(await eventTypesOf(subscription?.id ?? ''), ['subscription.created']);
  });

  it('declined, then retried with another card in the same checkout', async () => {
    const { created, details } = await confirmedWithDeclinedCard(ebook.id);

    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: { ...details, confirmationTokenId: testCards.visa },
    });
    const succeeded = await settledCheckout(seller, created.id, ['succeeded']);
    assert.equal(succeeded.status, 'succeeded');
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
    assert.deepEqual(
      (await paymentsOf(created.id)).map((payment) => [payment.status, payment.declineReason]),
      [
        ['failed', 'generic_decline'],
        ['succeeded', null],
      ],
    );
    const paid = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.equal(paid.paymentError, null);
  });

  it('expires unconfirmed: expired, and a late confirm is refused', async () => {
    const config = loadRuntimeConfig();
    const shortLived = await startApiServer(
      { ...config, checkouts: { ...config.checkouts, ttlSeconds: 2 } },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const created = await seller.polar.checkouts.create({ products: [ebook.id] });
      // The seller's token works on any API of the same database; this one's checkouts live 2 s.
      const response = await fetch(`${shortLived.url}/v1/checkouts/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [ebook.id] }),
      });
      assert.equal(response.status, 201);
      const { id, client_secret: clientSecret } = (await response.json()) as {
        id: string;
        client_secret: string;
      };
      assert.equal(await workflowResult(id), 'expired');
      assert.equal((await api.orm.em.fork().findOneOrFail(Checkout, id)).status, 'expired');
      await assert.rejects(
        buyer.checkouts.clientConfirm({ clientSecret, checkoutConfirmStripe: buyerDetails() }),
        ExpiredCheckoutError,
      );
      assert.deepEqual(await ordersOfCheckout(seller, id), []);
      // The one-hour checkout next to it is still open.
      assert.equal((await seller.polar.checkouts.get({ id: created.id })).status, 'open');
    } finally {
      await shortLived.close();
    }
  });

  it('confirmed twice at once: one confirm wins, one charge, one order', async () => {
    const created = await seller.polar.checkouts.create({ products: [ebook.id] });
    const details = buyerDetails();
    const confirm = () =>
      buyer.checkouts.clientConfirm({
        clientSecret: created.clientSecret,
        checkoutConfirmStripe: details,
      });
    const answers = await Promise.allSettled([confirm(), confirm()]);
    const refused = answers.filter((answer) => answer.status === 'rejected');
    assert.equal(refused.length, 1);
    assert.ok(refused[0]?.reason instanceof NotOpenCheckout, String(refused[0]?.reason));
    await settledCheckout(seller, created.id);
    // And once more after success: refused, nothing new.
    await assert.rejects(confirm(), NotOpenCheckout);
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
    assert.equal((await paymentsOf(created.id)).length, 1);
  });

  it('a payment webhook delivered twice (and resent) settles one order', async () => {
    const created = await seller.polar.checkouts.create({ products: [ebook.id] });
    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(testCards.authenticationRequired),
    });
    // 3-D Secure pending: the workflow waits for Stripe's word through the webhook.
    const [pending] = await eventually(
      () => paymentsOf(created.id),
      (payments) => payments[0]?.processorId != null,
      { what: 'the pending payment' },
    );
    assert.equal(pending?.status, 'pending');
    const paymentIntent = {
      id: pending?.processorId,
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2500,
      currency: 'usd',
      metadata: {
        workflow_id: workflowIds.checkout(created.id),
        payment_id: pending?.id,
        checkout_id: created.id,
      },
    };
    const event = {
      id: `evt_${randomUUID().replaceAll('-', '')}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: paymentIntent },
    };
    const payload = JSON.stringify(event);
    const secret = loadRuntimeConfig().stripe.webhookSecret ?? '';
    const deliver = () =>
      fetch(`${api.url}/v1/integrations/stripe/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripeSignature(payload, secret),
        },
        body: payload,
      });
    const answers = await Promise.all([deliver(), deliver()]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    const succeeded = await settledCheckout(seller, created.id);
    assert.equal(succeeded.status, 'succeeded');
    // The simulator resends its own events of this PaymentIntent too: nothing more happens.
    const simulator = stripeSimulatorControl(loadRuntimeConfig().stripe.simulatorUrl ?? '');
    for (const { id } of await simulator.eventsOf(pending?.processorId ?? '')) {
      await simulator.resendEvent(id);
    }
    assert.equal(await workflowResult(created.id), 'succeeded');
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
    assert.deepEqual(
      (await paymentsOf(created.id)).map((payment) => payment.status),
      ['succeeded'],
    );
  });

  /** A checkout of the ebook created as the API creates it, its workflow on `taskQueue`. */
  const checkoutOnQueue = (taskQueue: string) =>
    createCheckout(
      api.orm.em.fork(),
      seller.organizationId,
      checkoutCreateInput.parse({ products: [ebook.id] }),
      {
        publicUrl: loadRuntimeConfig().api.publicUrl,
        ttlSeconds: 3600,
        startWorkflow: ({ id, expiresAt }) =>
          temporal.workflow.start(checkoutWorkflow, {
            workflowId: workflowIds.checkout(id),
            taskQueue,
            args: [{ checkoutId: id, expiresAt: expiresAt.toISOString() }],
          }),
      },
    );

  it('confirmed twice at once on a worker that replays every task: the same commands again', async () => {
    // No workflow cache: each task replays the history, as after a worker restart. The two
    // confirms' local activities may end in one task; replayed, they must lead to the same
    // commands in the same order (a nondeterminism here left checkouts stuck in the soak).
    const workers = await workersOnOwnQueue(api, 'checkout-double-confirm');
    const worker = await workers.start();
    try {
      for (let round = 0; round < 3; round++) {
        const created = await checkoutOnQueue(workers.taskQueue);
        const confirm = () =>
          buyer.checkouts.clientConfirm({
            clientSecret: created.client_secret,
            checkoutConfirmStripe: buyerDetails(),
          });
        const answers = await Promise.allSettled([confirm(), confirm()]);
        assert.equal(answers.filter((answer) => answer.status === 'fulfilled').length, 1);
        assert.equal(await workflowResult(created.id), 'succeeded');
        assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
      }
    } finally {
      await worker.stop();
      await workers.close();
    }
  });

  it('survives a worker killed after charging: it resumes without a second charge', async () => {
    const config = loadRuntimeConfig();
    const workers = await workersOnOwnQueue(api, 'checkout-restart');
    const { taskQueue } = workers;
    // The first worker charges the card, then dies before it can report the charge.
    const dyingAfterCharge = workers.dyingAfter('createCheckoutPayment');
    const created = await checkoutOnQueue(taskQueue);
    const original = await workers.start(dyingAfterCharge.activities);
    try {
      await buyer.checkouts.clientConfirm({
        clientSecret: created.client_secret,
        checkoutConfirmStripe: buyerDetails(),
      });
      await dyingAfterCharge.done;
    } finally {
      await original.stop();
    }
    const [charge] = await paymentsOf(created.id);
    assert.equal(charge?.status, 'succeeded', 'Stripe took the money');
    assert.deepEqual(await ordersOfCheckout(seller, created.id), [], 'no order yet');

    const restarted = await workers.start();
    try {
      const succeeded = await settledCheckout(seller, created.id);
      assert.equal(succeeded.status, 'succeeded');
      assert.equal(await workflowResult(created.id), 'succeeded');
    } finally {
      await restarted.stop();
      await workers.close();
    }
    // The retried charge went out under the same idempotency key: the same PaymentIntent.
    const payments = await paymentsOf(created.id);
    assert.deepEqual(
      payments.map((payment) => [payment.processorId, payment.status]),
      [[charge?.processorId, 'succeeded']],
    );
    const simulator = stripeSimulatorControl(config.stripe.simulatorUrl ?? '');
    const succeededEvents = (await simulator.eventsOf(charge?.processorId ?? '')).filter(
      (event) => event.type === 'payment_intent.succeeded',
    );
    assert.equal(succeededEvents.length, 1);
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
  });
});
