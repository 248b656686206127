import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Subscription as SubscriptionWire } from '@polar-sh/sdk/models/components/subscription.js';
import { AlreadyCanceledSubscription } from '@polar-sh/sdk/models/errors/alreadycanceledsubscription.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import type { SubscriptionChange } from '../../domain/subscription-schedule.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { applySubscriptionChange } from './changes.ts';
import { advanceTestClock, subscribeOnTestClock } from './testing.ts';

// Every subscription here starts on its own test clock at this instant: its first period is
// January (31 days), so amounts that are multiples of 31 prorate to the cent.
const newYear = '2027-01-01T00:00:00.000Z';
const day = (n: number) => new Date(Date.parse(newYear) + n * 86_400_000).toISOString();

describe('subscription changes (PATCH and DELETE /v1/subscriptions/{id})', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
  });
  after(() => api.close());

  const monthlyPlan = (priceAmount: number, name = `Plan ${priceAmount}`) =>
    seller.polar.products.create({
      name,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount }],
    });

  /** A subscription to `productId` bought at `newYear` by a new customer on a clock of its own. */
  const subscribe = async (productId: string) => {
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, productId, newYear);
    return { subscription: await seller.polar.subscriptions.get({ id: subscriptionId }), clockId };
  };

  const advanceClock = (clockId: string, frozenTime: string) =>
    advanceTestClock(api, seller, clockId, frozenTime);

  /** The subscription events recorded for `subscriptionId`, oldest first. */
  const eventsOf = async (subscriptionId: string) => {
    const rows = await api.orm.em
      .fork()
      .getConnection()
      .execute<{ type: string }[]>(
        `select type from outbox_events
         where type like 'subscription.%' and data->>'id' = ? order by created_at, id`,
        [subscriptionId],
      );
    return rows.map((row) => row.type);
  };

  const patch = (id: string, body: unknown, token = seller.token) =>
    callV1(api, token, 'PATCH', `/v1/subscriptions/${id}`, body);

  it('cancels at the period end at the clock time, then uncancels, with their events', async () => {
    const { subscription, clockId } = await subscribe((await monthlyPlan(3100)).id);
    await advanceClock(clockId, day(5));

    const canceled = await seller.polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: {
        cancelAtPeriodEnd: true,
        customerCancellationReason: 'too_expensive',
        customerCancellationComment: 'Cheaper elsewhere',
      },
    });
    assert.equal(canceled.status, 'active');
    assert.equal(canceled.cancelAtPeriodEnd, true);
    assert.equal(canceled.canceledAt?.toISOString(), day(5));
    assert.equal(canceled.endsAt?.toISOString(), day(31));
    assert.equal(canceled.customerCancellationReason, 'too_expensive');
    assert.equal(canceled.customerCancellationComment, 'Cheaper elsewhere');

    const uncanceled = await seller.polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    assert.equal(uncanceled.cancelAtPeriodEnd, false);
    assert.equal(uncanceled.canceledAt, null);
    assert.equal(uncanceled.endsAt, null);
    assert.equal(uncanceled.customerCancellationReason, null);
    assert.deepEqual((await eventsOf(subscription.id)).slice(-4), [
      'subscription.updated',
      'subscription.canceled',
      'subscription.updated',
      'subscription.uncanceled',
    ]);
  });

  it('refuses a second cancel of a subscription already ending', async () => {
    const { subscription } = await subscribe((await monthlyPlan(3100)).id);
    const cancel = { cancel_at_period_end: true, customer_cancellation_reason: 'unused' };
    assert.equal((await patch(subscription.id, cancel)).status, 200);
    const again = await patch(subscription.id, { cancel_at_period_end: true });
    assert.equal(again.status, 403);
    assert.equal(again.body.error, 'AlreadyCanceledSubscription');
  });

  it('revokes now: canceled and ended at the clock time, and its benefit revoked', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Office hours',
      properties: {},
    });
    const plan = await monthlyPlan(3100);
    await seller.polar.products.updateBenefits({
      id: plan.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const { subscription, clockId } = await subscribe(plan.id);
    const grantOf = () =>
      seller.polar.benefitGrants
        .list({ customerId: subscription.customerId })
        .then((page) => page.result.items.find((grant) => grant.benefitId === benefit.id));
    await eventually(grantOf, (grant) => grant?.isGranted === true, { what: 'benefit granted' });
    await advanceClock(clockId, day(3));

    const revoked = await seller.polar.subscriptions.revoke({ id: subscription.id });
    assert.equal(revoked.status, 'canceled');
    assert.equal(revoked.endedAt?.toISOString(), day(3));
    assert.equal(revoked.endsAt?.toISOString(), day(3));
    assert.deepEqual((await eventsOf(subscription.id)).slice(-3), [
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ]);
    await eventually(grantOf, (grant) => grant?.isRevoked === true, { what: 'benefit revoked' });

    // Ended: nothing changes it any more, and nothing is written.
    const events = await eventsOf(subscription.id);
    await assert.rejects(
      seller.polar.subscriptions.update({
        id: subscription.id,
        subscriptionUpdate: { cancelAtPeriodEnd: true },
      }),
      AlreadyCanceledSubscription,
    );
    await assert.rejects(
      seller.polar.subscriptions.revoke({ id: subscription.id }),
      AlreadyCanceledSubscription,
    );
    assert.deepEqual(await eventsOf(subscription.id), events);
  });

  it('refuses to uncancel once the period has ended', async () => {
    const { subscription, clockId } = await subscribe((await monthlyPlan(3100)).id);
    assert.equal((await patch(subscription.id, { cancel_at_period_end: true })).status, 200);
    await advanceClock(clockId, day(32));
    await eventually(
      () => seller.polar.subscriptions.get({ id: subscription.id }),
      (ended) => ended.endedAt !== null,
      { what: 'the subscription ended at its period end' },
    );
    const refused = await patch(subscription.id, { cancel_at_period_end: false });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'AlreadyCanceledSubscription');
  });

  it('upgrades with proration_behavior invoice: the difference charged now in a subscription_update order', async () => {
    const [basic, pro] = await Promise.all([monthlyPlan(3100), monthlyPlan(6200, 'Pro')]);
    const { subscription, clockId } = await subscribe(basic.id);
    // 10 of 31 days used: 21/31 of each amount is left.
    await advanceClock(clockId, day(10));

    const upgraded = await seller.polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: { productId: pro.id, prorationBehavior: 'invoice' },
    });
    assert.equal(upgraded.productId, pro.id);
    assert.equal(upgraded.amount, 6200);
    assert.deepEqual(
      upgraded.prices.map((price) => price.id),
      pro.prices.map((price) => price.id),
    );
    const orders = await seller.polar.orders.list({ customerId: subscription.customerId });
    const change = orders.result.items.find(
      (order) => order.billingReason === 'subscription_update',
    );
    assert.ok(change, 'a subscription_update order');
    assert.equal(change.status, 'paid');
    assert.equal(change.subscriptionId, subscription.id);
    assert.equal(change.totalAmount, 2100);
    // Lines written in one instant come back in any order: read by amount.
    const lines = change.items.toSorted((a, b) => a.amount - b.amount);
    assert.deepEqual(
      lines.map((item) => [item.label, item.amount, item.proration]),
      [
        [`Unused time on ${basic.name}`, -2100, true],
        ['Remaining time on Pro', 4200, true],
      ],
    );
    const payments = await seller.polar.payments.list({ orderId: change.id });
    assert.deepEqual(
      payments.result.items.map((payment) => [payment.status, payment.amount]),
      [['succeeded', 2100]],
    );
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscription.id);
    assert.deepEqual(row.pendingItems, []);
  });

  it('upgrades with proration_behavior prorate: the difference left to the next renewal', async () => {
    const [basic, pro] = await Promise.all([monthlyPlan(3100), monthlyPlan(9300, 'Max')]);
    const { subscription, clockId } = await subscribe(basic.id);
    // 21 of 31 days used: 10/31 of each amount is left.
    await advanceClock(clockId, day(21));

    const upgraded = await seller.polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: { productId: pro.id, prorationBehavior: 'prorate' },
    });
    assert.equal(upgraded.productId, pro.id);
    assert.equal(upgraded.amount, 9300);
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscription.id);
    assert.deepEqual(
      row.pendingItems.map((item) => [item.label, item.amount]),
      [
        [`Unused time on ${basic.name}`, -1000],
        ['Remaining time on Max', 3000],
      ],
    );
    const orders = await seller.polar.orders.list({ customerId: subscription.customerId });
    assert.deepEqual(
      orders.result.items.map((order) => order.billingReason),
      ['subscription_create'],
    );
    assert.equal((await eventsOf(subscription.id)).at(-1), 'subscription.updated');
  });

  it('downgrades with proration_behavior invoice: the credit goes to the customer balance, nothing refunded', async () => {
    const [pro, basic] = await Promise.all([monthlyPlan(6200, 'Pro'), monthlyPlan(3100)]);
    const { subscription, clockId } = await subscribe(pro.id);
    await advanceClock(clockId, day(10));

    const downgraded = await patch(subscription.id, {
      product_id: basic.id,
      proration_behavior: 'invoice',
    });
    assert.equal(downgraded.status, 200, JSON.stringify(downgraded.body));
    assert.equal(downgraded.body.amount, 3100);
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscription.id);
    assert.deepEqual(row.pendingItems, []);
    // 4200 unused on Pro less 2100 remaining on Basic, credited once.
    assert.deepEqual(await seller.polar.customers.getBalance({ id: subscription.customerId }), {
      balance: 2100,
      currency: 'usd',
    });
    const orders = await seller.polar.orders.list({ customerId: subscription.customerId });
    assert.equal(orders.result.items.length, 1, 'no order for a credit');
  });

  it('applies a change run twice under one update id once: one order, one charge, one cancel', async () => {
    const [basic, pro] = await Promise.all([monthlyPlan(3100), monthlyPlan(6200, 'Pro')]);
    const { subscription, clockId } = await subscribe(basic.id);
    await advanceClock(clockId, day(10));
    // What a retried activity does: the same change, named by the same update id.
    const deps = {
      orm: api.orm,
      stripe: createStripeClient(api.config.stripe),
      publicUrl: api.config.api.publicUrl,
    };
    const twice = async (updateId: string, change: SubscriptionChange) => {
      const update = { id: updateId, workflowId: workflowIds.subscription(subscription.id) };
      await applySubscriptionChange(deps, subscription.id, update, change);
      return applySubscriptionChange(deps, subscription.id, update, change);
    };

    const upgrade = { kind: 'product', productId: pro.id, prorationBehavior: 'invoice' } as const;
    const upgraded = await twice(randomUUID(), upgrade);
    assert.equal(upgraded.subscription.product_id, pro.id);
    const orders = await seller.polar.orders.list({ customerId: subscription.customerId });
    const changes = orders.result.items.filter(
      (order) => order.billingReason === 'subscription_update',
    );
    assert.equal(changes.length, 1);
    const payments = await seller.polar.payments.list({ orderId: changes[0]?.id ?? '' });
    assert.equal(payments.result.items.length, 1);

    // Back down at once: 4200 unused on Pro less 2100 remaining on Basic, credited once.
    const downgrade = {
      kind: 'product',
      productId: basic.id,
      prorationBehavior: 'prorate',
    } as const;
    await twice(randomUUID(), downgrade);
    const balance = await seller.polar.customers.getBalance({ id: subscription.customerId });
    assert.equal(balance.balance, 2100);

    const cancel = {
      kind: 'cancel_at_period_end',
      cancelAtPeriodEnd: true,
      reason: 'unused',
      comment: null,
    } as const;
    const canceled = await twice(randomUUID(), cancel);
    assert.equal(canceled.subscription.cancel_at_period_end, true);
    assert.equal(canceled.schedule.cancelAtPeriodEnd, true);
    const events = await eventsOf(subscription.id);
    assert.equal(events.filter((type) => type === 'subscription.canceled').length, 1);
  });

  it('answers a declined invoice charge with 400 PaymentError and changes nothing', async () => {
    const [basic, pro] = await Promise.all([monthlyPlan(3100), monthlyPlan(6200, 'Pro')]);
    const { subscription, clockId } = await subscribe(basic.id);
    await advanceClock(clockId, day(10));
    await stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '').declinePayments({
      bodyIncludes: subscription.id,
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    });
    const events = await eventsOf(subscription.id);

    const refused = await patch(subscription.id, {
      product_id: pro.id,
      proration_behavior: 'invoice',
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'PaymentError');
    assert.equal(refused.body.detail, 'Your card has insufficient funds.');
    const unchanged = await seller.polar.subscriptions.get({ id: subscription.id });
    assert.equal(unchanged.productId, basic.id);
    assert.equal(unchanged.amount, 3100);
    assert.deepEqual(await eventsOf(subscription.id), events);
    const orders = await seller.polar.orders.list({ customerId: subscription.customerId });
    assert.equal(orders.result.items.length, 1);
  });

  describe('bad input: a clear 4xx and nothing written', () => {
    let subscription: SubscriptionWire;
    let original: SubscriptionWire;
    let eventsBefore: string[];

    before(async () => {
      ({ subscription } = await subscribe((await monthlyPlan(3100)).id));
      original = await seller.polar.subscriptions.get({ id: subscription.id });
      eventsBefore = await eventsOf(subscription.id);
    });

    const assertUnchanged = async () => {
      assert.deepEqual(await seller.polar.subscriptions.get({ id: subscription.id }), original);
      assert.deepEqual(await eventsOf(subscription.id), eventsBefore);
    };

    it('refuses an archived product, another organization’s, and a one-time one, at product_id', async () => {
      const archived = await monthlyPlan(6200, 'Archived');
      await seller.polar.products.update({ id: archived.id, productUpdate: { isArchived: true } });
      const foreign = await other.polar.products.create({
        name: 'Theirs',
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount: 6200 }],
      });
      const oneTime = await seller.polar.products.create({
        name: 'Once',
        prices: [{ amountType: 'fixed', priceAmount: 6200 }],
      });
      for (const product of [archived, foreign, oneTime]) {
        const refused = await patch(subscription.id, { product_id: product.id });
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.deepEqual(refused.body.detail[0].loc, ['body', 'product_id']);
      }
      await assertUnchanged();
    });

    it('refuses a product whose only price is archived', async () => {
      const plan = await monthlyPlan(6200, 'Repriced');
      const [price] = plan.prices;
      // Replacing the prices archives the old one; here it is the only one kept archived.
      await api.orm.em
        .fork()
        .getConnection()
        .execute('update product_prices set is_archived = true where id = ?', [price?.id]);
      const refused = await patch(subscription.id, { product_id: plan.id });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'product_id']);
      await assertUnchanged();
    });

    it('refuses unknown fields, two variants at once, or none', async () => {
      for (const body of [
        { cancel_at_period_end: true, color: 'blue' },
        { cancel_at_period_end: true, revoke: true },
        {},
        { trial_end: 'tomorrow' },
      ]) {
        const refused = await patch(subscription.id, body);
        assert.equal(refused.status, 422, JSON.stringify(body));
      }
      await assertUnchanged();
    });

    it('refuses to move the trial end of a subscription that is not trialing', async () => {
      const refused = await patch(subscription.id, { trial_end: day(60) });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'trial_end']);
      await assertUnchanged();
    });

    it('keeps organizations apart: another seller gets 404 everywhere', async () => {
      await assert.rejects(
        other.polar.subscriptions.update({
          id: subscription.id,
          subscriptionUpdate: { cancelAtPeriodEnd: true },
        }),
        ResourceNotFound,
      );
      await assert.rejects(
        other.polar.subscriptions.revoke({ id: subscription.id }),
        ResourceNotFound,
      );
      for (const [method, path] of [
        ['GET', `/v1/subscriptions/${subscription.id}/workflow`],
        ['POST', `/v1/subscriptions/${subscription.id}/dunning/retry`],
      ] as const) {
        assert.equal((await callV1(api, other.token, method, path)).status, 404);
      }
      await assertUnchanged();
    });
  });

  it('moves the end of a trial, and with it the end of the first period', async () => {
    const trial = await seller.polar.products.create({
      name: 'Trial plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 14,
      prices: [{ amountType: 'fixed', priceAmount: 3100 }],
    });
    const { subscription } = await subscribe(trial.id);
    assert.equal(subscription.status, 'trialing');
    assert.equal(subscription.trialEnd?.toISOString(), day(14));

    const extended = await patch(subscription.id, { trial_end: day(30) });
    assert.equal(extended.status, 200, JSON.stringify(extended.body));
    assert.equal(extended.body.trial_end, day(30));
    assert.equal(extended.body.current_period_end, day(30));
    const past = await patch(subscription.id, { trial_end: '2026-12-31T00:00:00.000Z' });
    assert.equal(past.status, 422);
    assert.deepEqual(past.body.detail[0].loc, ['body', 'trial_end']);
  });

  it('sets and removes a discount', async () => {
    const { subscription } = await subscribe((await monthlyPlan(3100)).id);
    const discount = await seller.polar.discounts.create({
      name: 'Loyalty',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'forever',
    });
    const discounted = await patch(subscription.id, { discount_id: discount.id });
    assert.equal(discounted.status, 200);
    assert.equal(discounted.body.discount_id, discount.id);
    assert.equal((await seller.polar.discounts.get({ id: discount.id })).redemptionsCount, 1);
    const removed = await patch(subscription.id, { discount_id: null });
    assert.equal(removed.body.discount_id, null);
    const foreign = await other.polar.discounts.create({
      name: 'Theirs',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'forever',
    });
    const refused = await patch(subscription.id, { discount_id: foreign.id });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'discount_id']);
  });

  it('answers the workflow state, lists by status, and refuses finance actions without a failed renewal', async () => {
    const { subscription } = await subscribe((await monthlyPlan(3100)).id);
    // The checkout's workflow starts the subscription's right after the order: it may lag a little.
    const state = await eventually(
      () => callV1(api, seller.token, 'GET', `/v1/subscriptions/${subscription.id}/workflow`),
      (answer) => answer.status === 200,
      { what: 'the subscription workflow answering its state' },
    );
    assert.equal(state.body.schedule.status, 'active');
    assert.equal(state.body.schedule.currentPeriodEnd, day(31));

    const pastDue = await callV1(
      api,
      seller.token,
      'GET',
      '/v1/subscriptions/?status=past_due&status=unpaid',
    );
    assert.equal(pastDue.status, 200);
    assert.ok(
      pastDue.body.items.every((item: { status: string }) =>
        ['past_due', 'unpaid'].includes(item.status),
      ),
    );
    assert.ok(!pastDue.body.items.some((item: { id: string }) => item.id === subscription.id));
    const active = await callV1(api, seller.token, 'GET', '/v1/subscriptions/?status=active');
    assert.ok(active.body.items.some((item: { id: string }) => item.id === subscription.id));
    const badStatus = await callV1(api, seller.token, 'GET', '/v1/subscriptions/?status=sleeping');
    assert.equal(badStatus.status, 422);

    const retry = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/subscriptions/${subscription.id}/dunning/retry`,
    );
    assert.equal(retry.status, 409);
    assert.equal(retry.body.error, 'NotPastDueSubscription');
  });
});
