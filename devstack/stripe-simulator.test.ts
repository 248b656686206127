import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import {
  buyerClient,
  buyerDetails,
  ordersOfCheckout,
  settledCheckout,
} from '../commerce/orders/testing.ts';
import { createSeller, startCommerceApi, type TestApi } from '../commerce/testing.ts';
import { loadConfig } from '../config/env.ts';
import {
  OutboxEvent,
  Payment,
  ProcessedStripeEvent,
  Refund as RefundRow,
} from '../db/entities/index.ts';
import { createStripeClient, type StripeClient } from '../integrations/stripe/client.ts';
import { eventually } from './eventually.ts';
import { startStripeMock } from './stripe-mock.ts';
import {
  type StripeSimulator,
  type StripeSimulatorControl,
  startStripeSimulator,
  stripeSimulatorControl,
} from './stripe-simulator.ts';
import { findFreePort, Supervisor } from './supervisor.ts';
import { locateGoTool } from './tools.ts';

const webhookSecret = 'whsec_simulator_test_secret';

/** A webhook endpoint of the test's own: keeps each delivery's raw body and signature. */
async function startEventSink() {
  const deliveries: { payload: string; signature: string }[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({
        payload: Buffer.concat(chunks).toString('utf8'),
        signature: String(request.headers['stripe-signature']),
      });
      response.end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    deliveries,
    /**
     * The delivered events of these PaymentIntents, verified with the Stripe SDK, once `count`
     * have arrived (other tests' events may arrive meanwhile).
     */
    async eventsOf(stripe: StripeClient, intentIds: string[], count: number) {
      for (;;) {
        const events = deliveries
          .map(({ payload, signature }) =>
            stripe.webhooks.constructEvent(payload, signature, webhookSecret),
          )
          .filter((event) => intentIds.includes((event.data.object as { id: string }).id));
        if (events.length >= count) return events;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Stripe simulator (stateful PaymentIntents in front of stripe-mock)', () => {
  const supervisor = new Supervisor(() => {});
  let simulator: StripeSimulator;
  let control: StripeSimulatorControl;
  let stripe: StripeClient;
  let sink: Awaited<ReturnType<typeof startEventSink>>;
  let customer: string;

  before(async () => {
    const config = loadConfig();
    const binary = await locateGoTool('stripe-mock', config.stripe.mockPath, () => {});
    assert.ok(binary, 'stripe-mock is installed');
    const upstream = await startStripeMock(supervisor, {
      binary,
      port: await findFreePort(),
      secretKey: config.stripe.secretKey,
      logFile: join(config.dataDir, 'test-logs', `stripe-mock-simulator-test-${process.pid}.log`),
    });
    sink = await startEventSink();
    simulator = await startStripeSimulator({ upstream, webhookSecret });
    control = stripeSimulatorControl(simulator.url);
    await control.registerWebhookTarget(sink.url);
    stripe = createStripeClient({ secretKey: config.stripe.secretKey, apiBase: simulator.url });
    customer = (await stripe.customers.create({ email: 'buyer@example.com' })).id;
  });
  after(async () => {
    await simulator.stop();
    await sink.close();
    await supervisor.stopAll();
  });

  const charge = (paymentMethod: string, idempotencyKey: string = randomUUID()) =>
    stripe.paymentIntents.create(
      {
        amount: 2500,
        currency: 'usd',
        customer,
        payment_method: paymentMethod,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        metadata: { workflow_id: 'checkout:abc', payment_id: 'p1' },
        expand: ['payment_method'],
      },
      { idempotencyKey },
    );

  /** The Stripe error a declined charge throws. */
  const declineOf = async (paymentMethod: string) => {
    const error = await charge(paymentMethod).then(
      () => assert.fail('the charge should be declined'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof Stripe.errors.StripeCardError);
    return error;
  };

  it('charges pm_card_visa: a new succeeded PaymentIntent, card and metadata kept', async () => {
    const first = await charge('pm_card_visa');
    const second = await charge('pm_card_visa');
    assert.match(first.id, /^pi_/);
    assert.notEqual(first.id, second.id);
    assert.equal(first.status, 'succeeded');
    assert.equal(first.amount_received, 2500);
    assert.equal(first.customer, customer);
    assert.deepEqual(first.metadata, { workflow_id: 'checkout:abc', payment_id: 'p1' });
    const method = first.payment_method as Stripe.PaymentMethod;
    assert.equal(method.card?.brand, 'visa');
    assert.equal(method.card?.last4, '4242');
    const retrieved = await stripe.paymentIntents.retrieve(first.id);
    assert.equal(retrieved.status, 'succeeded');
    assert.equal(retrieved.payment_method, 'pm_card_visa');
  });

  it('declines pm_card_chargeDeclined and …InsufficientFunds with Stripe’s codes', async () => {
    const generic = await declineOf('pm_card_chargeDeclined');
    assert.equal(generic.code, 'card_declined');
    assert.equal(generic.decline_code, 'generic_decline');
    assert.equal(generic.payment_intent?.status, 'requires_payment_method');
    assert.equal(generic.payment_intent?.last_payment_error?.payment_method?.card?.last4, '0002');

    const funds = await declineOf('pm_card_chargeDeclinedInsufficientFunds');
    assert.equal(funds.decline_code, 'insufficient_funds');
    assert.equal(funds.message, 'Your card has insufficient funds.');
    const stored = await stripe.paymentIntents.retrieve(funds.payment_intent?.id ?? '');
    assert.equal(stored.last_payment_error?.decline_code, 'insufficient_funds');
  });

  it('asks for authentication with pm_card_authenticationRequired, declines it off session', async () => {
    const onSession = await charge('pm_card_authenticationRequired');
    assert.equal(onSession.status, 'requires_action');
    assert.equal(onSession.next_action?.type, 'use_stripe_sdk');

    const offSession = await stripe.paymentIntents
      .create({
        amount: 900,
        currency: 'usd',
        customer,
        payment_method: 'pm_card_authenticationRequired',
        confirm: true,
        off_session: true,
      })
      .catch((error: unknown) => error);
    assert.ok(offSession instanceof Stripe.errors.StripeCardError);
    assert.equal(offSession.decline_code, 'authentication_required');
  });

  it('completes or fails the 3-D Secure step on request, with the matching event', async () => {
    const passing = await charge('pm_card_authenticationRequired');
    const failing = await charge('pm_card_authenticationRequired');
    await control.authenticatePayment(passing.id);
    await control.authenticatePayment(failing.id, { succeed: false });
    assert.equal((await stripe.paymentIntents.retrieve(passing.id)).status, 'succeeded');
    const failed = await stripe.paymentIntents.retrieve(failing.id);
    assert.equal(failed.status, 'requires_payment_method');
    assert.equal(failed.last_payment_error?.code, 'payment_intent_authentication_failure');
    const names = new Map([
      [passing.id, 'passing'],
      [failing.id, 'failing'],
    ]);
    const types = (await sink.eventsOf(stripe, [passing.id, failing.id], 4))
      .map((event) => `${names.get((event.data.object as Stripe.PaymentIntent).id)} ${event.type}`)
      .sort();
    assert.deepEqual(types, [
      'failing payment_intent.payment_failed',
      'failing payment_intent.requires_action',
      'passing payment_intent.requires_action',
      'passing payment_intent.succeeded',
    ]);
    await assert.rejects(control.authenticatePayment(passing.id));
  });

  it('answers a repeated Idempotency-Key with the first answer, declines included', async () => {
    const key = randomUUID();
    const first = await charge('pm_card_visa', key);
    const again = await charge('pm_card_visa', key);
    assert.equal(again.id, first.id);
    const listed = await stripe.paymentIntents.list({ customer, limit: 100 });
    assert.equal(listed.data.filter((intent) => intent.id === first.id).length, 1);

    const declineKey = randomUUID();
    const declinedOnce = await charge('pm_card_chargeDeclined', declineKey).catch((e) => e);
    // The buyer then pays that PaymentIntent with another card: a replay still tells the decline.
    await stripe.paymentIntents.confirm(declinedOnce.payment_intent.id, {
      payment_method: 'pm_card_visa',
    });
    const declinedAgain = await charge('pm_card_chargeDeclined', declineKey).catch((e) => e);
    assert.ok(declinedAgain instanceof Stripe.errors.StripeCardError);
    assert.equal(declinedAgain.payment_intent?.id, declinedOnce.payment_intent.id);
    assert.equal(declinedAgain.payment_intent?.status, 'requires_payment_method');

    const reused = await charge('pm_card_mastercard', key).catch((error: unknown) => error);
    assert.ok(reused instanceof Stripe.errors.StripeIdempotencyError);
  });

  it('confirms a PaymentIntent created unconfirmed; refuses confirming it twice', async () => {
    const created = await stripe.paymentIntents.create({ amount: 700, currency: 'usd', customer });
    assert.equal(created.status, 'requires_payment_method');
    const confirmed = await stripe.paymentIntents.confirm(created.id, {
      payment_method: 'pm_card_mastercard',
    });
    assert.equal(confirmed.status, 'succeeded');
    await assert.rejects(
      stripe.paymentIntents.confirm(created.id, { payment_method: 'pm_card_visa' }),
      (error: unknown) =>
        error instanceof Stripe.errors.StripeInvalidRequestError &&
        error.code === 'payment_intent_unexpected_state',
    );
  });

  it('sends each outcome as an event signed with the shared secret, verifiable by the SDK', async () => {
    const paid = await charge('pm_card_visa');
    const refused = await declineOf('pm_card_chargeDeclined');
    const events = await sink.eventsOf(stripe, [paid.id, refused.payment_intent?.id ?? ''], 2);
    const byIntent = new Map(
      events.map((event) => [(event.data.object as Stripe.PaymentIntent).id, event]),
    );
    const succeeded = byIntent.get(paid.id);
    assert.equal(succeeded?.type, 'payment_intent.succeeded');
    assert.match(succeeded?.id ?? '', /^evt_/);
    const intent = succeeded?.data.object as Stripe.PaymentIntent;
    assert.equal(intent.metadata.workflow_id, 'checkout:abc');
    assert.equal(intent.payment_method, 'pm_card_visa', 'events carry ids, not expansions');
    const failed = byIntent.get(refused.payment_intent?.id ?? '');
    assert.equal(failed?.type, 'payment_intent.payment_failed');
    const failedIntent = failed?.data.object as Stripe.PaymentIntent;
    assert.equal(failedIntent.last_payment_error?.decline_code, 'generic_decline');

    const delivery = sink.deliveries.at(-1) ?? assert.fail('delivered');
    assert.throws(
      () => stripe.webhooks.constructEvent(delivery.payload, delivery.signature, 'whsec_other'),
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('redelivers an event with the same id on request', async () => {
    const paid = await charge('pm_card_visa');
    const [event] = await waitForEvents(control, paid.id);
    await control.resendEvent(event?.id ?? '');
    const delivered = await sink.eventsOf(stripe, [paid.id], 2);
    assert.deepEqual(
      delivered.map((item) => item.id),
      [event?.id, event?.id],
    );
  });

  it('fails the next calls as told: 500s and dropped connections are retried, never charged twice', async () => {
    await control.injectFault({
      path: '/v1/payment_intents',
      method: 'POST',
      mode: 'error',
      count: 1,
    });
    const afterError = await charge('pm_card_visa');
    assert.equal(afterError.status, 'succeeded', 'the SDK retried the 500');

    // The charge went through but its answer was lost: the SDK's retry (same key) replays it.
    const key = randomUUID();
    await control.injectFault({ path: '/v1/payment_intents', mode: 'lost', count: 1 });
    const replayed = await charge('pm_card_visa', key);
    const charged = await stripe.paymentIntents.list({ customer, limit: 100 });
    const sameKey = charged.data.filter((intent) => intent.id === replayed.id);
    assert.equal(sameKey.length, 1);
    assert.equal((await waitForEvents(control, replayed.id)).length, 1, 'one event, one charge');

    await control.injectFault({ path: '/v1/customers', mode: 'drop', count: 5 });
    await assert.rejects(
      stripe.customers.create({ email: 'x@example.com' }),
      (error: unknown) => error instanceof Stripe.errors.StripeConnectionError,
    );
    await control.clearFaults();
    assert.match((await stripe.customers.create({ email: 'x@example.com' })).id, /^cus_/);
  });

  it('answers late as told, and sends a call’s events twice or out of order', async () => {
    await control.injectFault({
      path: '/v1/customers',
      method: 'POST',
      mode: 'slow',
      delayMs: 300,
    });
    assert.match((await stripe.customers.create({ email: 'late@example.com' })).id, /^cus_/);
    assert.deepEqual(await control.pendingFaults(), []);

    const orderTag = randomUUID();
    await control.injectFault({
      path: '/v1/payment_intents',
      method: 'POST',
      bodyIncludes: orderTag,
      mode: 'duplicate',
    });
    const paid = await stripe.paymentIntents.create({
      amount: 1200,
      currency: 'usd',
      customer,
      payment_method: 'pm_card_visa',
      confirm: true,
      metadata: { workflow_id: `checkout:${orderTag}` },
    });
    const twice = await sink.eventsOf(stripe, [paid.id], 2);
    assert.deepEqual(
      twice.map((event) => event.type),
      ['payment_intent.succeeded', 'payment_intent.succeeded'],
    );
    assert.equal(twice[0]?.id, twice[1]?.id, 'one event, delivered twice');

    // The refund.created of the call is held back: its settlement's refund.updated overtakes it.
    await control.injectFault({
      path: '/v1/refunds',
      method: 'POST',
      bodyIncludes: paid.id,
      mode: 'reorder',
      delayMs: 1500,
    });
    const refund = await stripe.refunds.create({ payment_intent: paid.id });
    const delivered = await eventually(
      () => control.eventsOf(refund.id),
      (events) => events.length === 2 && events.every((event) => event.deliveredAt.length === 1),
      { what: `the events of ${refund.id} delivered` },
    );
    const arrival = new Map(delivered.map((event) => [event.type, event.deliveredAt[0] ?? 0]));
    assert.ok(
      (arrival.get('refund.updated') ?? 0) < (arrival.get('refund.created') ?? 0),
      'refund.updated arrived before refund.created',
    );
    const counts = await control.faultCounts();
    for (const mode of ['slow', 'duplicate', 'reorder'] as const) {
      assert.ok((counts[mode] ?? 0) >= 1, `${mode} counted`);
    }
  });

  it('keeps one PaymentIntent per Idempotency-Key under random faults, Tollgate’s client retrying', async () => {
    const payer = (await stripe.customers.create({ email: 'chaos@example.com' })).id;
    await control.setChaos({
      error: 0.2,
      drop: 0.15,
      lost: 0.3,
      slow: 0.1,
      slowMs: 50,
      duplicate: 0.2,
      seed: 21,
    });
    const before = await control.faultCounts();
    const runTag = randomUUID();
    const paymentIds = Array.from({ length: 8 }, (_, index) => `${runTag}:${index}`);
    try {
      for (const paymentId of paymentIds) {
        // As a Temporal activity retries: the same key until the call has an answer.
        for (;;) {
          const paid = await stripe.paymentIntents
            .create(
              {
                amount: 700,
                currency: 'usd',
                customer: payer,
                payment_method: 'pm_card_visa',
                confirm: true,
                metadata: { payment_id: paymentId },
              },
              { idempotencyKey: `chaos:${paymentId}` },
            )
            .catch((error: unknown) => {
              assert.ok(
                error instanceof Stripe.errors.StripeConnectionError ||
                  error instanceof Stripe.errors.StripeAPIError,
                String(error),
              );
              return undefined;
            });
          if (paid) break;
        }
      }
    } finally {
      await control.clearChaos();
    }
    const listed = await stripe.paymentIntents.list({ customer: payer, limit: 100 });
    const charged = listed.data.filter((intent) =>
      paymentIds.includes(intent.metadata.payment_id ?? ''),
    );
    assert.deepEqual(
      charged.map((intent) => intent.metadata.payment_id).sort(),
      [...paymentIds].sort(),
      'exactly one PaymentIntent per payment',
    );
    const after = await control.faultCounts();
    assert.ok((after.lost ?? 0) > (before.lost ?? 0), 'some answers were lost');
  });

  it('declines the next matching confirmations as told, whatever the card', async () => {
    const subscriptionId = randomUUID();
    const renewal = () =>
      stripe.paymentIntents
        .create({
          amount: 900,
          currency: 'usd',
          customer,
          payment_method: 'pm_card_visa',
          confirm: true,
          off_session: true,
          metadata: { workflow_id: `subscription:${subscriptionId}` },
        })
        .catch((error: unknown) => error);
    await control.declinePayments({
      bodyIncludes: `subscription:${subscriptionId}`,
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
      count: 2,
    });
    const other = await charge('pm_card_visa');
    assert.equal(other.status, 'succeeded', 'a charge the fault does not name goes through');
    for (const _ of [1, 2]) {
      const refused = await renewal();
      assert.ok(refused instanceof Stripe.errors.StripeCardError);
      assert.equal(refused.decline_code, 'insufficient_funds');
      assert.equal(refused.message, 'Your card has insufficient funds.');
      assert.equal(refused.payment_intent?.status, 'requires_payment_method');
      const [event] = await waitForEvents(control, refused.payment_intent?.id ?? '');
      assert.equal(event?.type, 'payment_intent.payment_failed');
    }
    const third = await renewal();
    assert.equal((third as Stripe.PaymentIntent).status, 'succeeded', 'two declines, then paid');
    assert.deepEqual(await control.pendingFaults(), []);
  });

  it('saves a card through a SetupIntent: confirmed at once, declined cards refused', async () => {
    const setup = (paymentMethod: string) =>
      stripe.setupIntents.create(
        {
          customer,
          payment_method: paymentMethod,
          confirm: true,
          usage: 'off_session',
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          metadata: { checkout_id: 'abc' },
        },
        { idempotencyKey: randomUUID() },
      );
    const saved = await setup('pm_card_visa');
    assert.match(saved.id, /^seti_/);
    assert.equal(saved.status, 'succeeded');
    assert.equal(saved.payment_method, 'pm_card_visa');
    assert.equal(saved.usage, 'off_session');
    assert.equal((await stripe.setupIntents.retrieve(saved.id)).status, 'succeeded');
    const [event] = await waitForEvents(control, saved.id);
    assert.equal(event?.type, 'setup_intent.succeeded');

    const refused = await setup('pm_card_chargeDeclined').catch((error: unknown) => error);
    assert.ok(refused instanceof Stripe.errors.StripeCardError);
    assert.equal(refused.decline_code, 'generic_decline');
    assert.equal(refused.setup_intent?.status, 'requires_payment_method');
    assert.equal(refused.setup_intent?.last_setup_error?.code, 'card_declined');

    const unconfirmed = await stripe.setupIntents.create({ customer, usage: 'off_session' });
    assert.equal(unconfirmed.status, 'requires_payment_method');
    const confirmed = await stripe.setupIntents.confirm(unconfirmed.id, {
      payment_method: 'pm_card_mastercard',
    });
    assert.equal(confirmed.status, 'succeeded');
  });

  it('asks for 3-D Secure on a SetupIntent too: authenticated, failed or canceled', async () => {
    const setup = () =>
      stripe.setupIntents.create({
        customer,
        payment_method: 'pm_card_threeDSecure2Required',
        confirm: true,
        usage: 'off_session',
      });
    const passing = await setup();
    assert.equal(passing.status, 'requires_action');
    const challenge = challengeOf(passing);
    assert.equal(challenge, `${simulator.url}/_simulator/3ds/${passing.id}`);
    await control.authenticateSetup(passing.id);
    assert.equal((await stripe.setupIntents.retrieve(passing.id)).status, 'succeeded');

    const failing = await setup();
    await control.authenticateSetup(failing.id, { succeed: false });
    const failed = await stripe.setupIntents.retrieve(failing.id);
    assert.equal(failed.status, 'requires_payment_method');
    assert.equal(failed.last_setup_error?.code, 'setup_intent_authentication_failure');

    const abandoned = await setup();
    const canceled = await stripe.setupIntents.cancel(abandoned.id, {
      cancellation_reason: 'abandoned',
    });
    assert.equal(canceled.status, 'canceled');
    await assert.rejects(control.authenticateSetup(abandoned.id));
    const again = await stripe.setupIntents.cancel(abandoned.id).catch((error: unknown) => error);
    assert.ok(again instanceof Stripe.errors.StripeInvalidRequestError);
    assert.equal(again.code, 'setup_intent_unexpected_state');
    const types = async (id: string) => (await control.eventsOf(id)).map((event) => event.type);
    assert.deepEqual(await types(passing.id), [
      'setup_intent.requires_action',
      'setup_intent.succeeded',
    ]);
    assert.deepEqual(await types(failing.id), [
      'setup_intent.requires_action',
      'setup_intent.setup_failed',
    ]);
    assert.deepEqual(await types(abandoned.id), [
      'setup_intent.requires_action',
      'setup_intent.canceled',
    ]);
  });

  it('serves the 3-D Secure test challenge: Complete pays and sends the buyer back', async () => {
    const pending = await charge('pm_card_threeDSecure2Required');
    const challenge = challengeOf(pending);
    const back = 'https://shop.example/checkout?step=3ds';
    const page = await fetch(`${challenge}?return_url=${encodeURIComponent(back)}`);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.ok(html.includes(`value="${back.replace('&', '&#38;')}"`), html);
    const answered = await fetch(challenge, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ result: 'complete', return_url: back }),
      redirect: 'manual',
    });
    assert.deepEqual([answered.status, answered.headers.get('location')], [303, back]);
    assert.equal((await stripe.paymentIntents.retrieve(pending.id)).status, 'succeeded');
    // Nothing left to authenticate; a return address that is not http(s) is not followed.
    const done = await fetch(`${challenge}?return_url=javascript:alert(1)`);
    assert.equal(done.status, 404);
    assert.ok(!(await done.text()).includes('javascript:'));
  });

  it('sets up pm_card_chargeCustomerFail, then declines every charge of it', async () => {
    const saved = await stripe.setupIntents.create({
      customer,
      payment_method: 'pm_card_chargeCustomerFail',
      confirm: true,
      usage: 'off_session',
    });
    assert.equal(saved.status, 'succeeded');
    const refused = await declineOf('pm_card_chargeCustomerFail');
    assert.equal(refused.code, 'card_declined');
    assert.equal(refused.payment_intent?.last_payment_error?.payment_method?.card?.last4, '0341');
  });

  it('keeps each customer’s saved cards: attached by the intents that save them, listed, detached', async () => {
    const holder = (await stripe.customers.create({ email: 'holder@example.com' })).id;
    const other = (await stripe.customers.create({ email: 'other@example.com' })).id;
    const cardsOf = async (owner: string) =>
      (await stripe.customers.listPaymentMethods(owner, { type: 'card' })).data.map((method) => [
        method.id,
        method.customer,
        method.card?.last4,
      ]);
    await stripe.setupIntents.create({
      customer: holder,
      payment_method: 'pm_card_mastercard',
      confirm: true,
      usage: 'off_session',
    });
    await stripe.paymentIntents.create({
      amount: 2500,
      currency: 'usd',
      customer: other,
      payment_method: 'pm_card_amex',
      confirm: true,
      setup_future_usage: 'off_session',
    });
    // A charge that saves nothing attaches nothing.
    await stripe.paymentIntents.create({
      amount: 2500,
      currency: 'usd',
      customer: other,
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    assert.deepEqual(await cardsOf(holder), [['pm_card_mastercard', holder, '4444']]);
    assert.deepEqual(await cardsOf(other), [['pm_card_amex', other, '8431']]);
    const own = await stripe.customers.retrievePaymentMethod(holder, 'pm_card_mastercard');
    assert.equal(own.customer, holder);
    const foreign = await stripe.customers
      .retrievePaymentMethod(other, 'pm_card_mastercard')
      .catch((error: unknown) => error);
    assert.ok(foreign instanceof Stripe.errors.StripeInvalidRequestError);
    assert.equal(foreign.statusCode, 404);

    await stripe.paymentMethods.attach('pm_card_visa', { customer: holder });
    assert.deepEqual(
      (await cardsOf(holder)).map(([id]) => id),
      ['pm_card_visa', 'pm_card_mastercard'],
    );
    const detached = await stripe.paymentMethods.detach('pm_card_mastercard');
    assert.equal(detached.customer, null);
    assert.deepEqual(
      (await cardsOf(holder)).map(([id]) => id),
      ['pm_card_visa'],
    );
    const again = await stripe.paymentMethods
      .detach('pm_card_mastercard')
      .catch((error: unknown) => error);
    assert.ok(again instanceof Stripe.errors.StripeInvalidRequestError);
  });

  it('sets the expiry of one customer’s saved card, not of another’s holding the same card', async () => {
    const holder = (await stripe.customers.create({ email: 'expiring@example.com' })).id;
    const other = (await stripe.customers.create({ email: 'lasting@example.com' })).id;
    for (const owner of [holder, other]) {
      await stripe.paymentMethods.attach('pm_card_visa', { customer: owner });
    }
    await control.setCardExpiry(holder, 'pm_card_visa', { expMonth: 4, expYear: 2027 });
    const expiryOf = async (owner: string) => {
      const { card } = await stripe.customers.retrievePaymentMethod(owner, 'pm_card_visa');
      return [card?.exp_month, card?.exp_year, card?.last4];
    };
    assert.deepEqual(await expiryOf(holder), [4, 2027, '4242']);
    assert.deepEqual(await expiryOf(other), [12, new Date().getUTCFullYear() + 3, '4242']);
    const listed = await stripe.customers.listPaymentMethods(holder, { type: 'card' });
    assert.equal(listed.data.find((method) => method.id === 'pm_card_visa')?.card?.exp_year, 2027);
    // A card the customer does not hold, or a month that is none, is refused.
    await assert.rejects(
      control.setCardExpiry(holder, 'pm_card_amex', { expMonth: 4, expYear: 2027 }),
      /404/,
    );
    await assert.rejects(
      control.setCardExpiry(holder, 'pm_card_visa', { expMonth: 13, expYear: 2027 }),
      /400/,
    );
  });

  it('keeps the confirmation tokens its test helper makes: an intent confirmed with one pays as its card', async () => {
    const token = await stripe.testHelpers.confirmationTokens.create({
      payment_method: 'pm_card_authenticationRequired',
    });
    assert.equal((await stripe.confirmationTokens.retrieve(token.id)).id, token.id);
    const pending = await stripe.setupIntents.create({
      customer,
      confirmation_token: token.id,
      confirm: true,
      usage: 'off_session',
    });
    assert.equal(pending.status, 'requires_action');
    assert.equal(pending.payment_method, 'pm_card_authenticationRequired');
    const unknown = await stripe.confirmationTokens
      .retrieve('ctoken_1NeverMade')
      .catch((error: unknown) => error);
    assert.ok(unknown instanceof Stripe.errors.StripeInvalidRequestError);
    assert.equal(unknown.statusCode, 404);
  });

  it('refunds a paid PaymentIntent: pending, then succeeded with its signed events', async () => {
    const paid = await charge('pm_card_visa');
    const refund = await stripe.refunds.create(
      { payment_intent: paid.id, amount: 1000, metadata: { workflow_id: 'refund:abc' } },
      { idempotencyKey: `refund:${paid.id}` },
    );
    assert.match(refund.id, /^re_/);
    assert.deepEqual(
      [refund.status, refund.amount, refund.payment_intent, refund.metadata?.workflow_id],
      ['pending', 1000, paid.id, 'refund:abc'],
    );
    const replayed = await stripe.refunds.create(
      { payment_intent: paid.id, amount: 1000, metadata: { workflow_id: 'refund:abc' } },
      { idempotencyKey: `refund:${paid.id}` },
    );
    assert.equal(replayed.id, refund.id);
    const events = await sink.eventsOf(stripe, [refund.id], 2);
    assert.deepEqual(
      events.map((event) => [event.type, (event.data.object as Stripe.Refund).status]),
      [
        ['refund.created', 'pending'],
        ['refund.updated', 'succeeded'],
      ],
    );
    assert.equal((await stripe.refunds.retrieve(refund.id)).status, 'succeeded');
  });

  it('refuses a refund above what the charge has left, or of a charge refunded already', async () => {
    const paid = await charge('pm_card_visa');
    const refusal = (amount: number) =>
      stripe.refunds.create({ payment_intent: paid.id, amount }).then(
        () => assert.fail('the refund should be refused'),
        (error: unknown) => {
          assert.ok(error instanceof Stripe.errors.StripeInvalidRequestError);
          return error.code;
        },
      );
    assert.equal(await refusal(2501), 'amount_too_large');
    await stripe.refunds.create({ payment_intent: paid.id, amount: 2000 });
    assert.equal(await refusal(501), 'amount_too_large');
    await stripe.refunds.create({ payment_intent: paid.id });
    assert.equal(await refusal(1), 'charge_already_refunded');
  });

  it('fails the refunds of a payment made with pm_card_refundFail, freeing the amount', async () => {
    const paid = await charge('pm_card_refundFail');
    assert.equal(paid.status, 'succeeded');
    const refund = await stripe.refunds.create({ payment_intent: paid.id });
    const failed = await eventually(
      () => stripe.refunds.retrieve(refund.id),
      (current) => current.status !== 'pending',
      { what: `refund ${refund.id} failed` },
    );
    assert.deepEqual(
      [failed.status, failed.failure_reason],
      ['failed', 'expired_or_canceled_card'],
    );
    const again = await stripe.refunds.create({ payment_intent: paid.id });
    assert.equal(again.amount, 2500);
  });

  it('passes other calls to stripe-mock, its validation included', async () => {
    const product = await stripe.products.create({ name: 'Passed through' });
    assert.equal(product.object, 'product');
    await assert.rejects(
      stripe.paymentIntents.create({ amount: 100, currency: 'usd', bogus: true } as never),
      Stripe.errors.StripeInvalidRequestError,
    );
  });
});

describe('Tollgate under duplicate and out-of-order Stripe webhooks (the run’s simulator)', () => {
  let api: TestApi;

  before(async () => {
    api = await startCommerceApi();
  });
  after(() => api.close());

  it('pays and refunds an order once: each event applied once, a late refund.created changing nothing', async () => {
    const seller = await createSeller(api);
    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const created = await seller.polar.checkouts.create({ products: [ebook.id] });
    // The checkout's charge has its events delivered twice, at once.
    await simulator.injectFault({
      path: '/v1/payment_intents',
      method: 'POST',
      bodyIncludes: created.id,
      mode: 'duplicate',
    });
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(),
    });
    assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
    const [order, ...others] = await ordersOfCheckout(seller, created.id);
    assert.ok(order, 'the checkout made an order');
    assert.equal(others.length, 0, 'one order');
    const em = () => api.orm.em.fork();
    const payments = await em().find(Payment, { checkoutId: created.id });
    assert.deepEqual(
      payments.map((payment) => payment.status),
      ['succeeded'],
    );
    const paymentIntentId = payments[0]?.processorId ?? assert.fail('a PaymentIntent');
    const [succeeded] = await eventually(
      () => simulator.eventsOf(paymentIntentId),
      (events) => events.length === 1 && events[0]?.deliveredAt.length === 2,
      { what: `the event of ${paymentIntentId} delivered twice` },
    );
    assert.equal(await em().count(ProcessedStripeEvent, { id: succeeded?.id }), 1);

    // Two refunds: the first one's refund.created arrives after its refund.updated (held back
    // 1.5 s), the second's events arrive twice.
    const refundCall = { path: '/v1/refunds', method: 'POST', bodyIncludes: paymentIntentId };
    await simulator.injectFault({ ...refundCall, mode: 'reorder', delayMs: 1500 });
    await simulator.injectFault({ ...refundCall, mode: 'duplicate' });
    for (const amount of [500, 1500]) {
      const answered = await seller.polar.refunds.create({
        orderId: order.id,
        amount,
        reason: 'customer_request',
      });
      const refundId = answered?.id ?? assert.fail('the refund is answered with a body');
      const settled = await eventually(
        async () => (await seller.polar.refunds.list({ id: refundId })).result.items[0],
        (found) => found !== undefined && found.status !== 'pending',
        { what: `refund ${refundId} settled` },
      );
      assert.equal(settled?.status, 'succeeded');
    }
    const mine = [created.id, paymentIntentId];
    const pending = await simulator.pendingFaults();
    assert.deepEqual(
      pending.filter((fault) => mine.includes(fault.bodyIncludes)),
      [],
    );
    const refunds = await em().find(RefundRow, { order: order.id });
    const stripeRefundIds = await Promise.all(
      refunds.map(async (refund) => {
        const events = await eventually(
          () => simulator.eventsOf(refund.processorId ?? ''),
          (found) => found.length === 2 && found.every((event) => event.deliveredAt.length > 0),
          { what: `the events of refund ${refund.id} delivered` },
        );
        for (const event of events) {
          assert.ok((await em().count(ProcessedStripeEvent, { id: event.id })) <= 1);
        }
        return refund.processorId;
      }),
    );
    assert.equal(new Set(stripeRefundIds).size, 2, 'two refunds at Stripe');
    // A late refund.created did not set a settled refund back to pending.
    const after = (await seller.polar.refunds.list({ orderId: order.id })).result.items;
    assert.deepEqual(
      after.map((refund) => refund.status),
      ['succeeded', 'succeeded'],
    );
    const paidOrder = await seller.polar.orders.get({ id: order.id });
    assert.deepEqual([paidOrder.status, paidOrder.refundedAmount], ['refunded', 2000]);
    const paidEvents = await em().find(OutboxEvent, { type: 'order.paid' });
    assert.equal(
      paidEvents.filter((event) => event.data.id === order.id).length,
      1,
      'order.paid once',
    );
  });
});

/** The simulator's events of a PaymentIntent, once there is one. */
/** The simulator's 3-D Secure challenge an intent points to (`use_stripe_sdk.stripe_js`). */
function challengeOf(intent: Stripe.PaymentIntent | Stripe.SetupIntent): string {
  const sdk = intent.next_action?.use_stripe_sdk as { stripe_js?: string } | undefined;
  return sdk?.stripe_js ?? assert.fail('no challenge to run');
}

function waitForEvents(control: StripeSimulatorControl, paymentIntentId: string) {
  return eventually(
    () => control.eventsOf(paymentIntentId),
    (events) => events.length > 0,
    { what: `the events of ${paymentIntentId}`, intervalMs: 20 },
  );
}
