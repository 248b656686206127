import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Polar } from '@polar-sh/sdk';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type Stripe from 'stripe';
import { createPaymentActivities } from '../../activities/payments.ts';
import { Checkout, Customer, Payment, ProcessedStripeEvent } from '../../db/entities/index.ts';
import { stripeSignature, stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { createStripeClient, type StripeClient } from '../../integrations/stripe/client.ts';
import {
  chargeAttempt,
  type PaymentAttemptResult,
  paymentIdOf,
} from '../../integrations/stripe/payments.ts';
import { applyStripeEvent } from '../../processes/stripe-events.ts';
import { temporalDataConverter } from '../../temporal/payload-codec.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { recordPaymentOutcome } from './service.ts';
import { collectPaymentOutcomes, doneSignal, receivedOutcomesQuery } from './testing-workflow.ts';

Runtime.install({ logger: new DefaultLogger('WARN') });

const webhookPath = '/v1/integrations/stripe/webhook';

describe('Payments: Stripe charges, the Stripe webhook, /v1/payments', () => {
  let api: TestApi;
  let stripe: StripeClient;
  let seller: Seller;
  let stripeCustomerId: string;
  let worker: Worker;
  let workerRunning: Promise<void>;
  let connection: NativeConnection;
  const taskQueue = `test-payment-outcomes-${randomUUID()}`;

  before(async () => {
    api = await startCommerceApi();
    stripe = createStripeClient(api.config.stripe);
    seller = await createSeller(api);
    stripeCustomerId = (await stripe.customers.create({ email: 'buyer@example.com' })).id;
    // The workflow the Stripe webhook signals, on this test's own task queue and worker.
    connection = await NativeConnection.connect({ address: api.config.temporal.address });
    worker = await Worker.create({
      connection,
      namespace: api.config.temporal.namespace,
      taskQueue,
      workflowsPath: join(import.meta.dirname, 'testing-workflow.ts'),
      dataConverter: temporalDataConverter(api.config.temporal.payloadKeys),
    });
    workerRunning = worker.run();
  });
  after(async () => {
    worker.shutdown();
    await workerRunning;
    await connection.close();
    await api.close();
  });

  /** A workflow that keeps the outcomes signalled to it. */
  const startCollector = () =>
    api.temporal.workflow.start(collectPaymentOutcomes, {
      workflowId: `payment-test:${randomUUID()}`,
      taskQueue,
    });

  /** The outcomes a collector received, once there are `count`. */
  async function outcomesOf(handle: WorkflowHandle<typeof collectPaymentOutcomes>, count = 1) {
    for (;;) {
      const outcomes = await handle.query(receivedOutcomesQuery);
      if (outcomes.length >= count) return outcomes;
      await sleep(50);
    }
  }

  /** A charge through the activities' code, for `workflowId`, of `organizationId`. */
  const charge = (
    paymentMethod: string,
    workflowId: string,
    { organizationId = seller.organizationId, checkoutId = null as string | null } = {},
  ): Promise<PaymentAttemptResult> => {
    const idempotencyKey = `test:${randomUUID()}`;
    return chargeAttempt(
      { orm: api.orm, stripe },
      {
        paymentId: paymentIdOf(idempotencyKey),
        idempotencyKey,
        organizationId,
        checkoutId,
        workflowId,
        amount: 2500,
        currency: 'usd',
        stripeCustomerId,
        paymentMethodOrToken: paymentMethod,
        saveForOffSession: false,
      },
    );
  };

  describe('charges and their webhook events', () => {
    it('settles a paid charge', async () => {
      const collector = await startCollector();
      const charged = await charge('pm_card_visa', collector.workflowId);
      assert.equal(charged.status, 'succeeded');
      assert.match(charged.paymentIntentId, /^pi_/);

      const payment = await seller.polar.payments.get({ id: charged.paymentId });
      assert.equal(payment.status, 'succeeded');
      assert.equal(payment.method, 'card');
      assert.deepEqual(
        'methodMetadata' in payment && {
          brand: payment.methodMetadata.brand,
          last4: payment.methodMetadata.last4,
        },
        { brand: 'visa', last4: '4242' },
      );
      assert.deepEqual(payment.processorMetadata, { intent_id: charged.paymentIntentId });
      // Written once, with Stripe's answer: no pending row updated after the charge.
      const row = await api.orm.em.fork().findOneOrFail(Payment, { id: charged.paymentId });
      assert.equal(row.modifiedAt ?? null, null);
    });

    it('fails a declined charge with the processor’s decline code and message', async () => {
      const collector = await startCollector();
      const charged = await charge('pm_card_chargeDeclinedInsufficientFunds', collector.workflowId);
      assert.equal(charged.status, 'failed');
      assert.equal(charged.declineCode, 'insufficient_funds');
      assert.equal(charged.message, 'Your card has insufficient funds.');

      const payment = await seller.polar.payments.get({ id: charged.paymentId });
      assert.equal(payment.status, 'failed');
      assert.equal('methodMetadata' in payment && payment.methodMetadata.last4, '9995');
      assert.equal(payment.declineReason, 'insufficient_funds');
      assert.equal(payment.declineMessage, 'Your card has insufficient funds.');
    });

    it('signals a card that needs authentication; its payment stays pending', async () => {
      const collector = await startCollector();
      const charged = await charge('pm_card_authenticationRequired', collector.workflowId);
      assert.equal(charged.status, 'requires_action');
      const [outcome] = await outcomesOf(collector);
      assert.equal(outcome?.status, 'requires_action');
      const payment = await seller.polar.payments.get({ id: charged.paymentId });
      assert.equal(payment.status, 'pending');
    });

    it('applies a redelivered event once', async () => {
      const collector = await startCollector();
      const charged = await charge('pm_card_authenticationRequired', collector.workflowId);
      await outcomesOf(collector);
      const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
      const [event] = await simulator.eventsOf(charged.paymentIntentId);
      assert.equal(event?.type, 'payment_intent.requires_action');
      await simulator.resendEvent(event?.id ?? '');
      await simulator.resendEvent(event?.id ?? '');
      await collector.signal(doneSignal);
      assert.equal((await collector.result()).length, 1);
      const processed = await api.orm.em.fork().count(ProcessedStripeEvent, { id: event?.id });
      assert.equal(processed, 1);
    });
  });

  describe('the webhook endpoint', () => {
    const secret = () => api.config.stripe.webhookSecret ?? assert.fail('a webhook secret');

    /** A pending payment of a collector's workflow, and a Stripe event settling it. */
    /**
     * A payment whose charge Stripe answered `processing` (so its workflow waits for the
     * webhook), and the event settling it; `answered: false`, one whose charge's answer is not
     * recorded yet.
     */
    async function pendingPayment({ answered = true } = {}) {
      const collector = await startCollector();
      const paymentId = randomUUID();
      const payment = {
        paymentId,
        organizationId: seller.organizationId,
        checkoutId: null,
        amount: 1200,
        currency: 'usd',
      };
      const intentId = `pi_${randomBytes(8).toString('hex')}`;
      const payload = JSON.stringify({
        id: `evt_${randomBytes(8).toString('hex')}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: {
          object: {
            id: intentId,
            object: 'payment_intent',
            status: 'succeeded',
            amount: 1200,
            currency: 'usd',
            payment_method: 'pm_card_visa',
            last_payment_error: null,
            metadata: {
              workflow_id: collector.workflowId,
              payment_id: paymentId,
              organization_id: seller.organizationId,
            },
          },
        },
      });
      if (answered) {
        const processing = {
          id: intentId,
          status: 'processing',
          payment_method: 'pm_card_visa',
          last_payment_error: null,
        } as Stripe.PaymentIntent;
        await recordPaymentOutcome(api.orm.em.fork(), payment, processing);
      }
      return { collector, payment, paymentId, intentId, payload };
    }

    const post = (payload: string, signature?: string) =>
      fetch(`${api.url}${webhookPath}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(signature ? { 'stripe-signature': signature } : {}),
        },
        body: payload,
      });

    it('refuses bad, missing, tampered and too old signatures with 400, writing nothing', async () => {
      const { collector, paymentId, payload } = await pendingPayment();
      const eventId = (JSON.parse(payload) as { id: string }).id;
      const fiveMinutesAgo = Math.floor(Date.now() / 1000) - 301;
      const refused = [
        await post(payload, stripeSignature(payload, 'whsec_not_the_secret')),
        await post(payload),
        await post(payload.replace('1200', '1'), stripeSignature(payload, secret())),
        await post(payload, stripeSignature(payload, secret(), fiveMinutesAgo)),
      ];
      for (const response of refused) {
        assert.equal(response.status, 400);
        const body = (await response.json()) as { error: string; detail: string };
        assert.equal(body.error, 'BadRequest');
        assert.match(body.detail, /signature/i);
      }
      const em = api.orm.em.fork();
      assert.equal((await em.findOneOrFail(Payment, { id: paymentId })).status, 'pending');
      assert.equal(await em.count(ProcessedStripeEvent, { id: eventId }), 0);
      assert.deepEqual(await collector.query(receivedOutcomesQuery), []);

      const accepted = await post(payload, stripeSignature(payload, secret()));
      assert.equal(accepted.status, 200);
      assert.deepEqual(await accepted.json(), { received: true, result: 'applied' });
      assert.equal((await outcomesOf(collector))[0]?.paymentId, paymentId);
      const paid = await api.orm.em.fork().findOneOrFail(Payment, { id: paymentId });
      assert.equal(paid.status, 'succeeded');
    });

    it('answers the same event twice, even at once, with one effect', async () => {
      const { collector, payload } = await pendingPayment();
      const signature = stripeSignature(payload, secret());
      const answers = await Promise.all([post(payload, signature), post(payload, signature)]);
      const results = await Promise.all(answers.map((answer) => answer.json()));
      assert.deepEqual(results.map((result) => (result as { result: string }).result).sort(), [
        'applied',
        'duplicate',
      ]);
      await collector.signal(doneSignal);
      assert.equal((await collector.result()).length, 1);
    });

    it('owes a signal Temporal did not take, and sends it when Stripe delivers the event again', async () => {
      const { collector, paymentId, payload } = await pendingPayment();
      const event = JSON.parse(payload) as Stripe.Event;
      // A client whose signals Temporal does not take (unreachable, or refusing for a moment).
      const unavailable = new Client({
        connection: api.temporal.connection,
        namespace: api.config.temporal.namespace,
        interceptors: {
          workflow: [
            {
              signal: () => Promise.reject(new Error('Temporal is unavailable')),
            },
          ],
        },
      });
      await assert.rejects(
        applyStripeEvent({ orm: api.orm, temporal: unavailable, logger: api.logger }, event),
        /Temporal is unavailable/,
      );
      // The outcome and the claim are committed, the signal kept on the claim as owed.
      const em = api.orm.em.fork();
      assert.equal((await em.findOneOrFail(Payment, { id: paymentId })).status, 'succeeded');
      const claim = await em.findOneOrFail(ProcessedStripeEvent, event.id);
      assert.equal(claim.owedSignal?.workflowId, collector.workflowId);
      assert.deepEqual(await collector.query(receivedOutcomesQuery), []);

      // Stripe, told nothing good, delivers the event again: the owed signal is sent, once.
      const again = await post(payload, stripeSignature(payload, secret()));
      assert.deepEqual(await again.json(), { received: true, result: 'duplicate' });
      const settled = await post(payload, stripeSignature(payload, secret()));
      assert.deepEqual(await settled.json(), { received: true, result: 'duplicate' });
      await collector.signal(doneSignal);
      const received = await collector.result();
      assert.deepEqual(
        received.map((outcome) => [outcome.paymentId, outcome.status]),
        [[paymentId, 'succeeded']],
      );
      const cleared = await api.orm.em.fork().findOneOrFail(ProcessedStripeEvent, event.id);
      assert.equal(cleared.owedSignal, null);
    });

    it('signals nothing for a payment its charge’s own answer settled first', async () => {
      const { collector, payment, paymentId, intentId, payload } = await pendingPayment();
      const intent = (JSON.parse(payload) as { data: { object: object } }).data.object;
      // What chargeAttempt does with Stripe's answer, before the webhook's event comes.
      await recordPaymentOutcome(api.orm.em.fork(), payment, intent as Stripe.PaymentIntent);
      // The row's version: the transaction that last wrote it.
      const version = async () =>
        (
          await api.orm.em
            .getConnection()
            .execute<{ xmin: string }[]>('select xmin::text from payments where id = ?', [
              paymentId,
            ])
        )[0]?.xmin;
      const settled = await version();
      const answer = await post(payload, stripeSignature(payload, secret()));
      assert.deepEqual(await answer.json(), { received: true, result: 'applied' });
      await collector.signal(doneSignal);
      assert.deepEqual(await collector.result(), []);
      const paid = await api.orm.em.fork().findOneOrFail(Payment, { id: paymentId });
      assert.equal(paid.status, 'succeeded');
      assert.equal(paid.processorId, intentId);
      // The event said nothing new: the row was not written again.
      assert.equal(await version(), settled);
    });

    it('signals nothing for an event settling a payment ahead of its charge’s answer, which then takes its outcome', async () => {
      const { collector, payment, paymentId, intentId, payload } = await pendingPayment({
        answered: false,
      });
      const answer = await post(payload, stripeSignature(payload, secret()));
      assert.deepEqual(await answer.json(), { received: true, result: 'applied' });
      await collector.signal(doneSignal);
      assert.deepEqual(await collector.result(), []);
      // The event wrote the payment, from its PaymentIntent: no charge's answer had yet.
      const written = await api.orm.em.fork().findOneOrFail(Payment, { id: paymentId });
      assert.deepEqual(
        [written.status, written.amount, written.organization.id, written.processorId],
        ['succeeded', 1200, seller.organizationId, intentId],
      );
      // The charge's own answer, older than the event: what it hands its workflow is the event's.
      const charged = await recordPaymentOutcome(api.orm.em.fork(), payment, {
        id: intentId,
        status: 'processing',
        last_payment_error: null,
      } as Stripe.PaymentIntent);
      assert.equal(charged?.settledBefore, true);
      assert.equal(charged?.outcome?.status, 'succeeded');
    });

    it('writes a payment once when its charge’s answer and its event come at the same moment', async () => {
      const { payment, paymentId, intentId, payload } = await pendingPayment({ answered: false });
      const intent = (JSON.parse(payload) as { data: { object: Stripe.PaymentIntent } }).data
        .object;
      const both = await Promise.all(
        [1, 2].map(() => recordPaymentOutcome(api.orm.em.fork(), payment, intent)),
      );
      // One wrote the row, the other found it settled: one of them hands the outcome over.
      assert.deepEqual(both.map((recorded) => recorded?.settledBefore).sort(), [false, true]);
      assert.deepEqual(
        both.map((recorded) => recorded?.outcome?.status),
        ['succeeded', 'succeeded'],
      );
      const written = await api.orm.em.fork().findOneOrFail(Payment, { id: paymentId });
      assert.equal(written.processorId, intentId);
    });

    it('acknowledges events it has no use for', async () => {
      const other = JSON.stringify({
        id: `evt_${randomBytes(8).toString('hex')}`,
        object: 'event',
        type: 'customer.created',
        data: { object: { id: 'cus_1', object: 'customer' } },
      });
      const answer = await post(other, stripeSignature(other, secret()));
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { received: true, result: 'ignored' });
    });
  });

  describe('the checkout activities', () => {
    /** A checkout of a fresh product with a customer, as the checkout workflow leaves it. */
    async function checkoutWithCustomer(polar: Polar) {
      const product = await polar.products.create({
        name: 'Ebook',
        prices: [{ amountType: 'fixed', priceAmount: 1900 }],
      });
      const customer = await polar.customers.create({ email: `buyer-${randomUUID()}@example.com` });
      const em = api.orm.em.fork();
      const checkout = em.create(Checkout, {
        organization: seller.organizationId,
        clientSecret: `polar_c_${randomBytes(16).toString('hex')}`,
        expiresAt: new Date(Date.now() + 3_600_000),
        productIds: [product.id],
        product: product.id,
        productPrice: product.prices[0]?.id ?? '',
        amount: 1900,
        netAmount: 1900,
        totalAmount: 1900,
        currency: 'usd',
        customer: customer.id,
      });
      await em.flush();
      return { checkoutId: checkout.id, customerId: customer.id, customerEmail: customer.email };
    }

    it('makes the Stripe customer once and keeps it on the customer', async () => {
      const activities = createPaymentActivities({ orm: api.orm, stripe });
      const { customerId } = await checkoutWithCustomer(seller.polar);
      const first = await activities.ensureStripeCustomer({ customerId });
      const again = await activities.ensureStripeCustomer({ customerId });
      assert.match(first, /^cus_/);
      assert.equal(again, first);
      const stored = await api.orm.em.fork().findOneOrFail(Customer, { id: customerId });
      assert.equal(stored.stripeCustomerId, first);
    });

    it('charges a checkout once per attempt, even when Stripe’s answer is lost', async () => {
      const activities = createPaymentActivities({ orm: api.orm, stripe });
      const { checkoutId, customerId } = await checkoutWithCustomer(seller.polar);
      await activities.ensureStripeCustomer({ customerId });
      const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
      // Stripe charges, then the connection drops: the SDK's retry (same key) gets the charge.
      await simulator.injectFault({
        path: '/v1/payment_intents',
        method: 'POST',
        bodyIncludes: checkoutId,
        mode: 'lost',
      });
      const first = await activities.createCheckoutPayment({
        checkoutId,
        paymentMethodOrToken: 'pm_card_visa',
        attempt: 1,
      });
      // The activity run again (a Temporal retry): the same payment and PaymentIntent.
      const rerun = await activities.createCheckoutPayment({
        checkoutId,
        paymentMethodOrToken: 'pm_card_visa',
        attempt: 1,
      });
      assert.equal(first.status, 'succeeded');
      const pending = await simulator.pendingFaults();
      assert.ok(!pending.some((fault) => fault.bodyIncludes === checkoutId), 'the answer was lost');
      assert.deepEqual(rerun, first);
      const second = await activities.createCheckoutPayment({
        checkoutId,
        paymentMethodOrToken: 'pm_card_visa',
        attempt: 2,
      });
      assert.notEqual(second.paymentIntentId, first.paymentIntentId);

      const em = api.orm.em.fork();
      const payments = await em.find(Payment, { checkoutId }, { orderBy: { createdAt: 'asc' } });
      assert.deepEqual(
        payments.map((payment) => payment.processorId).sort(),
        [first.paymentIntentId, second.paymentIntentId].sort(),
      );
      const customer = await em.findOneOrFail(Customer, { id: customerId });
      const intents = await stripe.paymentIntents.list({
        customer: customer.stripeCustomerId ?? '',
        limit: 100,
      });
      assert.equal(intents.data.length, 2, 'two attempts, two charges');
      assert.equal(intents.data[0]?.metadata.workflow_id, `checkout:${checkoutId}`);
    });
  });

  describe('/v1/payments', () => {
    let other: Seller;
    let paid: PaymentAttemptResult;
    let declined: PaymentAttemptResult;
    let checkoutId: string;

    before(async () => {
      other = await createSeller(api);
      const workflowId = `payment-test:${randomUUID()}`;
      checkoutId = randomUUID();
      paid = await charge('pm_card_visa', workflowId, { organizationId: other.organizationId });
      declined = await charge('pm_card_chargeDeclined', workflowId, {
        organizationId: other.organizationId,
        checkoutId,
      });
    });

    it('lists an organization’s payments only, newest first, with filters', async () => {
      const all = await other.polar.payments.list({});
      assert.deepEqual(
        all.result.items.map((payment) => payment.id),
        [declined.paymentId, paid.paymentId],
      );
      assert.equal(all.result.pagination.totalCount, 2);
      const failed = await other.polar.payments.list({ status: 'failed' });
      assert.deepEqual(
        failed.result.items.map((payment) => payment.id),
        [declined.paymentId],
      );
      const ofCheckout = await other.polar.payments.list({ checkoutId });
      assert.deepEqual(
        ofCheckout.result.items.map((payment) => payment.id),
        [declined.paymentId],
      );
      const byMethod = await other.polar.payments.list({ method: 'card', sorting: ['created_at'] });
      assert.deepEqual(
        byMethod.result.items.map((payment) => payment.id),
        [paid.paymentId, declined.paymentId],
      );
      const foreign = await seller.polar.payments.list({});
      assert.ok(
        foreign.result.items.every((payment) => payment.organizationId !== other.organizationId),
      );
      const named = await seller.polar.payments.list({ organizationId: other.organizationId });
      assert.equal(named.result.items.length, 0);
    });

    it('filters by the paying customer’s email', async () => {
      const { checkoutId: ofCustomer, customerEmail } = await (async () => {
        const product = await other.polar.products.create({
          name: 'Course',
          prices: [{ amountType: 'fixed', priceAmount: 2500 }],
        });
        const customer = await other.polar.customers.create({
          email: `Payer-${randomUUID()}@example.com`,
        });
        const em = api.orm.em.fork();
        const checkout = em.create(Checkout, {
          organization: other.organizationId,
          clientSecret: `polar_c_${randomBytes(16).toString('hex')}`,
          expiresAt: new Date(Date.now() + 3_600_000),
          productIds: [product.id],
          product: product.id,
          productPrice: product.prices[0]?.id ?? '',
          amount: 2500,
          netAmount: 2500,
          totalAmount: 2500,
          currency: 'usd',
          customer: customer.id,
        });
        await em.flush();
        return { checkoutId: checkout.id, customerEmail: customer.email };
      })();
      const bought = await charge('pm_card_visa', `payment-test:${randomUUID()}`, {
        organizationId: other.organizationId,
        checkoutId: ofCustomer,
      });
      const found = await other.polar.payments.list({ customerEmail: customerEmail.toLowerCase() });
      assert.deepEqual(
        found.result.items.map((payment) => payment.id),
        [bought.paymentId],
      );
    });

    it('gets one payment; another organization’s is not found, a malformed id is a 422', async () => {
      const payment = await other.polar.payments.get({ id: declined.paymentId });
      assert.equal(payment.status, 'failed');
      assert.equal(payment.declineReason, 'generic_decline');
      assert.equal(payment.checkoutId, checkoutId);
      assert.equal(payment.orderId, null);
      assert.equal(payment.amount, 2500);
      await assert.rejects(seller.polar.payments.get({ id: declined.paymentId }), ResourceNotFound);
      await assert.rejects(other.polar.payments.get({ id: 'not-a-uuid' }), HTTPValidationError);
    });

    it('needs the payments:read scope and a token', async () => {
      const ordersOnly = await createSeller(api, { scopes: ['orders:read'] });
      assert.equal((await callV1(api, ordersOnly.token, 'GET', '/v1/payments/')).status, 403);
      assert.equal((await callV1(api, null, 'GET', '/v1/payments/')).status, 401);
    });
  });
});
