import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { loadRuntimeConfig } from '../../config/env.ts';
import { BenefitGrant, OutboxEvent, Payment, Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { buyerClient, buyerDetails, settledCheckout, testCards } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** Stripe's test card that asks for 3-D Secure on every charge. */
const threeDSecureCard = 'pm_card_threeDSecure2Required';

describe('incomplete subscriptions (a plan bought through a checkout created by API)', {
  concurrency: true,
}, () => {
  let api: TestApi;
  let seller: Seller;
  let buyer: Polar;
  let planId: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    buyer = buyerClient(api);
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Members area',
      properties: { note: 'Welcome in!' },
    });
    planId = (
      await seller.polar.products.create({
        name: 'Monthly plan',
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount: 1500 }],
      })
    ).id;
    await seller.polar.products.updateBenefits({
      id: planId,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
  });
  after(() => api.close());

  const eventTypesOf = async (subscriptionId: string) =>
    (
      await api.orm.em
        .fork()
        .find(OutboxEvent, { data: { id: subscriptionId } }, { orderBy: { createdAt: 'asc' } })
    ).map((event) => event.type);

  /** The subscription the checkout made, once it exists. */
  const subscriptionOfCheckout = (checkoutId: string) =>
    eventually(
      () => api.orm.em.fork().findOne(Subscription, { checkoutId }),
      (subscription) => subscription !== null,
      { what: `the subscription of checkout ${checkoutId}` },
    ) as Promise<Subscription>;

  /** The seller's subscriptions listed with the `active` filter, by id. */
  async function listedIds(active: boolean): Promise<string[]> {
    const page = await seller.polar.subscriptions.list({ active, limit: 100 });
    return page.result.items.map((subscription) => subscription.id);
  }

  it('3-D Secure pending: incomplete and listed; authenticated, the same one is active', async () => {
    const created = await seller.polar.checkouts.create({ products: [planId] });
    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(threeDSecureCard),
    });
    const waiting = await eventually(
      () => buyer.checkouts.clientGet({ clientSecret: created.clientSecret }),
      (checkout) => checkout.paymentProcessorMetadata.intent_status === 'requires_action',
      { what: 'the checkout asking for 3-D Secure' },
    );
    const incomplete = await subscriptionOfCheckout(created.id);
    const listed = await seller.polar.subscriptions.get({ id: incomplete.id });
    assert.equal(listed.status, 'incomplete');
    assert.equal(listed.startedAt, null);
    assert.ok((await listedIds(false)).includes(incomplete.id));
    assert.ok(!(await listedIds(true)).includes(incomplete.id));
    // Not a subscriber yet: the customer state lists active subscriptions only.
    const state = await seller.polar.customers.getState({ id: listed.customerId });
    assert.deepEqual(state.activeSubscriptions, []);
    assert.deepEqual(state.grantedBenefits, []);
    // Nothing a seller counts: not active, not new, no MRR (it never started).
    const today = new Date().toISOString().slice(0, 10);
    const metrics = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/metrics/?start_date=${today}&end_date=${today}&interval=day&timezone=UTC`,
    );
    assert.equal(metrics.status, 200);
    const { active_subscriptions, new_subscriptions, monthly_recurring_revenue } =
      metrics.body.totals;
    assert.deepEqual(
      [active_subscriptions, new_subscriptions, monthly_recurring_revenue],
      [0, 0, 0],
    );
    // Its checkout starts it once paid: a change other than a revoke is refused until then.
    const cancel = await callV1(api, seller.token, 'PATCH', `/v1/subscriptions/${incomplete.id}`, {
      cancel_at_period_end: true,
    });
    assert.equal(cancel.status, 403);
    assert.equal(cancel.body.error, 'NotPermitted');

    const challengeUrl = waiting.paymentProcessorMetadata.intent_next_action_url ?? '';
    const returnUrl = `${api.url}/checkout/${created.clientSecret}`;
    const completed = await fetch(challengeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ result: 'complete', return_url: returnUrl }),
      redirect: 'manual',
    });
    assert.equal(completed.status, 303);

    const paid = await settledCheckout(seller, created.id);
    assert.equal(paid.status, 'succeeded');
    assert.equal(paid.subscriptionId, incomplete.id);
    const active = await seller.polar.subscriptions.get({ id: incomplete.id });
    assert.equal(active.status, 'active');
    assert.ok(active.startedAt);
    assert.equal(await api.orm.em.fork().count(Subscription, { checkoutId: created.id }), 1);
    assert.deepEqual(await eventTypesOf(incomplete.id), [
      'subscription.created',
      'subscription.updated',
      'subscription.active',
    ]);
    assert.ok((await listedIds(true)).includes(incomplete.id));
  });

  it('declined and never paid: incomplete_expired once its time is up, nothing granted', async () => {
    const config = loadRuntimeConfig();
    // Checkouts open 2 s, incomplete subscriptions waiting 4 s instead of 23 hours.
    const brief = await startCommerceApi({
      ...config,
      checkouts: { ...config.checkouts, ttlSeconds: 2, incompleteSubscriptionSeconds: 4 },
    });
    try {
      const response = await fetch(`${brief.url}/v1/checkouts/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [planId] }),
      });
      assert.equal(response.status, 201);
      const { id, client_secret: clientSecret } = (await response.json()) as {
        id: string;
        client_secret: string;
      };
      await buyerClient(brief).checkouts.clientConfirm({
        clientSecret,
        checkoutConfirmStripe: buyerDetails(testCards.declined),
      });
      const failed = await settledCheckout(seller, id, ['failed']);
      const subscription = await subscriptionOfCheckout(id);
      assert.equal(failed.subscriptionId, subscription.id);
      assert.equal(subscription.status, 'incomplete');

      const expired = await eventually(
        () => seller.polar.subscriptions.get({ id: subscription.id }),
        (read) => read.status === 'incomplete_expired',
        { what: `subscription ${subscription.id} incomplete_expired` },
      );
      assert.ok(expired.endedAt);
      assert.equal(expired.startedAt, null);
      assert.deepEqual(await eventTypesOf(subscription.id), [
        'subscription.created',
        'subscription.updated',
      ]);
      const em = api.orm.em.fork();
      assert.equal(await em.count(BenefitGrant, { customer: subscription.customer.id }), 0);
      // The declined charge was the only one.
      const payments = await em.find(Payment, { checkoutId: id });
      assert.deepEqual(
        payments.map((payment) => payment.status),
        ['failed'],
      );
      assert.ok((await listedIds(false)).includes(subscription.id));
    } finally {
      await brief.close();
    }
  });

  it("a checkout link's declined buyer has no subscription", async () => {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [planId],
    });
    // The link's address is under the public URL: asked of the test's API instead.
    const opened = await fetch(`${api.url}${new URL(link.url).pathname}`, { redirect: 'manual' });
    const clientSecret = (opened.headers.get('location') ?? '').split('/').at(-1) ?? '';
    const checkout = await buyer.checkouts.clientConfirm({
      clientSecret,
      checkoutConfirmStripe: buyerDetails(testCards.declined),
    });
    const failed = await settledCheckout(seller, checkout.id, ['failed']);
    assert.equal(failed.subscriptionId, null);
    assert.equal(await api.orm.em.fork().count(Subscription, { checkoutId: checkout.id }), 0);
  });
});
