import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Checkout, Payment, Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { buyerClient, buyerDetails, ordersOfCheckout, settledCheckout } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** Stripe's test cards that ask for 3-D Secure on every charge (and setup). */
const threeDSecureCard = 'pm_card_threeDSecure2Required';
const authenticationRequiredCard = 'pm_card_authenticationRequired';

describe('checkout with a card that asks for 3-D Secure', { concurrency: true }, () => {
  let api: TestApi;
  let seller: Seller;
  let buyer: Polar;
  let ebookId: string;
  const simulator = stripeSimulatorControl(loadRuntimeConfig().stripe.simulatorUrl ?? '');

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    buyer = buyerClient(api);
    ebookId = (
      await seller.polar.products.create({
        name: 'Ebook',
        prices: [{ amountType: 'fixed', priceAmount: 2500 }],
      })
    ).id;
  });
  after(() => api.close());

  const paymentsOf = (checkoutId: string) =>
    api.orm.em.fork().find(Payment, { checkoutId }, { orderBy: { createdAt: 'asc' } });

  /** Confirms a new checkout of `productId` with `card` through the buyer's SDK. */
  async function confirmedWith(card: string, productId = ebookId, on: Polar = buyer) {
    const created = await seller.polar.checkouts.create({ products: [productId] });
    await on.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(card),
    });
    return created;
  }

  /** The checkout as its page reads it once it asks the buyer for the 3-D Secure step. */
  function awaitingAuthentication(clientSecret: string, on: Polar = buyer) {
    return eventually(
      () => on.checkouts.clientGet({ clientSecret }),
      (checkout) => checkout.paymentProcessorMetadata.intent_status === 'requires_action',
      { what: 'the checkout asking for 3-D Secure' },
    );
  }

  /** The intent id a client secret belongs to (`pi_…_secret_…`, `seti_…_secret_…`). */
  const intentOf = (metadata: Record<string, string>) =>
    (metadata.intent_client_secret ?? '').split('_secret_')[0] ?? '';

  it('requires_action: the page gets the challenge; completed on it, paid once', async () => {
    const created = await confirmedWith(threeDSecureCard);
    const waiting = await awaitingAuthentication(created.clientSecret);
    assert.equal(waiting.status, 'confirmed');
    const metadata = waiting.paymentProcessorMetadata;
    const paymentIntentId = intentOf(metadata);
    assert.match(paymentIntentId, /^pi_/);
    const challengeUrl = metadata.intent_next_action_url ?? '';
    assert.equal(challengeUrl, `${simulatorUrl()}/_simulator/3ds/${paymentIntentId}`);
    // Nothing is paid yet: the payment waits, no order.
    assert.deepEqual(
      (await paymentsOf(created.id)).map((payment) => payment.status),
      ['pending'],
    );
    assert.deepEqual(await ordersOfCheckout(seller, created.id), []);

    // The simulator's challenge page, as the buyer's browser uses it: "Complete", then back.
    const returnUrl = `${api.url}/checkout/${created.clientSecret}`;
    const page = await fetch(`${challengeUrl}?return_url=${encodeURIComponent(returnUrl)}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Pay 25\.00 USD\?/);
    assert.match(html, /value="complete">Complete</);
    const completed = await fetch(challengeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ result: 'complete', return_url: returnUrl }),
      redirect: 'manual',
    });
    assert.equal(completed.status, 303);
    assert.equal(completed.headers.get('location'), returnUrl);

    const paid = await settledCheckout(seller, created.id);
    assert.equal(paid.status, 'succeeded');
    assert.equal(paid.paymentProcessorMetadata.intent_status, undefined);
    assert.equal(paid.paymentProcessorMetadata.intent_client_secret, undefined);
    const payments = await paymentsOf(created.id);
    assert.deepEqual(
      payments.map((payment) => [payment.status, payment.processorId, payment.amount]),
      [['succeeded', paymentIntentId, 2500]],
    );
    const orders = await ordersOfCheckout(seller, created.id);
    assert.equal(orders.length, 1);
    assert.equal(payments[0]?.order?.id, orders[0]?.id);
    // The step is done: the challenge has nothing more to authenticate.
    assert.equal((await fetch(challengeUrl)).status, 404);
  });

  /** The Stripe calls (activities) the checkout's workflow scheduled, in order. */
  async function stripeCallsOf(checkoutId: string): Promise<string[]> {
    const history = await api.temporal.workflow
      .getHandle(workflowIds.checkout(checkoutId))
      .fetchHistory();
    return (history.events ?? []).flatMap((event) => {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    });
  }

  it("the page's word that the step ended: the workflow asks Stripe, without the webhook", async () => {
    const created = await confirmedWith(threeDSecureCard);
    const waiting = await awaitingAuthentication(created.clientSecret);
    const report = () =>
      callV1(api, null, 'POST', `/v1/checkouts/client/${created.clientSecret}/authentication`);
    // Said too early (the buyer left the challenge undone): Stripe still waits, so does the checkout.
    const early = await report();
    assert.equal(early.status, 200);
    assert.equal(early.body.status, 'confirmed');
    await eventually(
      () => stripeCallsOf(created.id),
      (calls) => calls.includes('checkCheckoutPayment'),
      { what: 'the workflow asking Stripe' },
    );
    assert.equal((await seller.polar.checkouts.get({ id: created.id })).status, 'confirmed');

    await simulator.authenticatePayment(intentOf(waiting.paymentProcessorMetadata));
    assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
    // Once settled, the word changes nothing: the checkout is answered as it is.
    const late = await report();
    assert.deepEqual([late.status, late.body.status], [200, 'succeeded']);
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
    // An unknown secret is not found.
    const unknown = await callV1(
      api,
      null,
      'POST',
      '/v1/checkouts/client/polar_c_nope/authentication',
    );
    assert.equal(unknown.status, 404);
  });

  it('a failed authentication fails the checkout; the buyer pays with another card', async () => {
    const created = await confirmedWith(authenticationRequiredCard);
    const waiting = await awaitingAuthentication(created.clientSecret);
    await simulator.authenticatePayment(intentOf(waiting.paymentProcessorMetadata), {
      succeed: false,
    });
    const failed = await settledCheckout(seller, created.id);
    assert.equal(failed.status, 'failed');
    const row = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.deepEqual(row.paymentError, {
      code: 'payment_intent_authentication_failure',
      message: 'Your card could not be authenticated. Try again, or use another card.',
    });
    assert.equal(failed.paymentProcessorMetadata.intent_status, undefined);
    assert.deepEqual(await ordersOfCheckout(seller, created.id), []);

    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails('pm_card_visa'),
    });
    const paid = await settledCheckout(seller, created.id, ['succeeded']);
    assert.equal(paid.status, 'succeeded');
    assert.deepEqual(
      (await paymentsOf(created.id)).map((payment) => [payment.status, payment.declineReason]),
      [
        ['failed', 'payment_intent_authentication_failure'],
        ['succeeded', null],
      ],
    );
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
  });

  it('no answer until the deadline: the PaymentIntent canceled, the checkout failed', async () => {
    const config = loadRuntimeConfig();
    const impatient = await startCommerceApi({
      ...config,
      checkouts: { ...config.checkouts, authenticationTimeoutSeconds: 2 },
    });
    try {
      const impatientBuyer = buyerClient(impatient);
      // Created through the API whose checkouts wait 2 s for the step.
      const response = await fetch(`${impatient.url}/v1/checkouts/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [ebookId] }),
      });
      assert.equal(response.status, 201);
      const { id, client_secret: clientSecret } = (await response.json()) as {
        id: string;
        client_secret: string;
      };
      await impatientBuyer.checkouts.clientConfirm({
        clientSecret,
        checkoutConfirmStripe: buyerDetails(threeDSecureCard),
      });
      const failed = await settledCheckout(seller, id);
      assert.equal(failed.status, 'failed');
      const [payment] = await paymentsOf(id);
      assert.deepEqual([payment?.status, payment?.declineReason], ['failed', 'canceled']);
      const events = await simulator.eventsOf(payment?.processorId ?? '');
      assert.deepEqual(
        events.map((event) => event.type),
        ['payment_intent.requires_action', 'payment_intent.canceled'],
      );
      const shown = await impatientBuyer.checkouts.clientGet({ clientSecret });
      assert.equal(shown.paymentProcessorMetadata.intent_status, undefined);
      assert.equal(
        (await api.orm.em.fork().findOneOrFail(Checkout, id)).paymentError?.code,
        'authentication_timeout',
      );
      assert.deepEqual(await ordersOfCheckout(seller, id), []);
    } finally {
      await impatient.close();
    }
  });

  it('a trial whose card asks for 3-D Secure: authenticated, then trialing on that card', async () => {
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 7,
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const created = await confirmedWith(threeDSecureCard, plan.id);
    const waiting = await awaitingAuthentication(created.clientSecret);
    const setupIntentId = intentOf(waiting.paymentProcessorMetadata);
    assert.match(setupIntentId, /^seti_/);
    assert.match(waiting.paymentProcessorMetadata.intent_next_action_url ?? '', /\/3ds\/seti_/);
    await simulator.authenticateSetup(setupIntentId);

    const trialing = await settledCheckout(seller, created.id);
    assert.equal(trialing.status, 'succeeded');
    assert.deepEqual(await paymentsOf(created.id), []);
    const [order] = await ordersOfCheckout(seller, created.id);
    const subscription = await eventually(
      () => api.orm.em.fork().findOne(Subscription, { id: order?.subscriptionId ?? '' }),
      (found) => found !== null,
      { what: 'the trial subscription' },
    );
    assert.equal(subscription?.status, 'trialing');
    assert.equal(subscription?.stripePaymentMethodId, threeDSecureCard);
  });

  it('a trial whose 3-D Secure step fails: failed, and another card saves it', async () => {
    const plan = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 14,
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const created = await confirmedWith(authenticationRequiredCard, plan.id);
    const waiting = await awaitingAuthentication(created.clientSecret);
    // The page's word before the step is done: the workflow asks Stripe, and waits on.
    const early = await callV1(
      api,
      null,
      'POST',
      `/v1/checkouts/client/${created.clientSecret}/authentication`,
    );
    assert.deepEqual([early.status, early.body.status], [200, 'confirmed']);
    await eventually(
      () => stripeCallsOf(created.id),
      (calls) => calls.includes('checkCheckoutSetup'),
      { what: 'the workflow asking Stripe about the SetupIntent' },
    );
    assert.equal((await seller.polar.checkouts.get({ id: created.id })).status, 'confirmed');
    await simulator.authenticateSetup(intentOf(waiting.paymentProcessorMetadata), {
      succeed: false,
    });
    assert.equal((await settledCheckout(seller, created.id)).status, 'failed');
    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails('pm_card_visa'),
    });
    assert.equal((await settledCheckout(seller, created.id, ['succeeded'])).status, 'succeeded');
    assert.equal((await ordersOfCheckout(seller, created.id)).length, 1);
  });

  function simulatorUrl() {
    return loadRuntimeConfig().stripe.simulatorUrl ?? '';
  }
});
