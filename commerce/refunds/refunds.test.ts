import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import type { Refund } from '@polar-sh/sdk/models/components/refund.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { RefundAmountTooHigh } from '@polar-sh/sdk/models/errors/refundamounttoohigh.js';
import { RefundedAlready } from '@polar-sh/sdk/models/errors/refundedalready.js';
import { Context } from '@temporalio/activity';
import {
  Order as OrderRow,
  OutboxEvent,
  Payment,
  Refund as RefundRow,
} from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { taskQueues } from '../../temporal/task-queues.ts';
import { workersOnOwnQueue } from '../../temporal/testing.ts';
import { refund as refundWorkflow } from '../../workflows/refund.ts';
import { buy, buyerDetails } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { refundCreateInput } from './schemas.ts';
import { createRefund, refundTaxOf } from './service.ts';

describe('refunds (/v1/refunds)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let ebookId: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    ebookId = ebook.id;
  });
  after(() => api.close());

  /** A paid order of the ebook (2000 cents), bought with `card`. */
  async function paidOrder(card?: string, productId = ebookId): Promise<Order> {
    const { order } = await buy(api, seller, productId, buyerDetails(card));
    assert.ok(order, 'the checkout made an order');
    return order;
  }

  async function refund(
    orderId: string,
    amount: number,
    options: { revokeBenefits?: boolean } = {},
  ): Promise<Refund> {
    const created = await seller.polar.refunds.create({
      orderId,
      amount,
      reason: 'customer_request',
      ...options,
    });
    assert.ok(created, 'the refund is answered with a body');
    return created;
  }

  /** The refund once its workflow settled it. */
  const settled = (id: string) =>
    eventually(
      async () => (await seller.polar.refunds.list({ id })).result.items[0],
      (found) => found !== undefined && found.status !== 'pending',
      { what: `refund ${id} settled` },
    ) as Promise<Refund>;

  const orderOf = (id: string) => seller.polar.orders.get({ id });

  it('refunds part of an order, then the rest, with the tax pro rata to the cent', async () => {
    const order = await paidOrder();
    // Checkouts charge no tax yet: 400 of the 2000 paid is made the order's tax.
    await api.orm.em.fork().nativeUpdate(OrderRow, order.id, { netAmount: 1600, taxAmount: 400 });

    // 330 × 400 / 1600 = 82.5: rounded half up.
    const first = await refund(order.id, 330);
    assert.deepEqual(
      [first.status, first.amount, first.taxAmount, first.orderId, first.customerId],
      ['pending', 330, 83, order.id, order.customerId],
    );
    assert.equal((await settled(first.id)).status, 'succeeded');
    const partly = await orderOf(order.id);
    assert.deepEqual(
      [partly.status, partly.refundedAmount, partly.refundedTaxAmount],
      ['partially_refunded', 330, 83],
    );

    // The remainder takes the tax left (317), not round(1270 × 400 / 1600) = 318.
    const rest = await refund(order.id, 1270);
    assert.equal(rest.taxAmount, 317);
    assert.equal((await settled(rest.id)).status, 'succeeded');
    const whole = await orderOf(order.id);
    assert.deepEqual(
      [whole.status, whole.refundedAmount, whole.refundedTaxAmount],
      ['refunded', 1600, 400],
    );
  });

  it('records refund.created, refund.updated and order.refunded carrying the refunded order', async () => {
    const order = await paidOrder();
    const created = await refund(order.id, 2000);
    await settled(created.id);
    const em = api.orm.em.fork();
    const refundEvents = await em.find(
      OutboxEvent,
      { data: { id: created.id } },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    assert.deepEqual(
      refundEvents.map((event) => [event.type, event.data.status]),
      [
        ['refund.created', 'pending'],
        ['refund.updated', 'succeeded'],
      ],
    );
    const orderEvents = await em.find(OutboxEvent, {
      type: { $in: ['order.refunded', 'order.updated'] },
      data: { id: order.id },
    });
    assert.deepEqual(
      orderEvents
        .map((event) => [event.type, event.data.status, event.data.refunded_amount])
        .sort(),
      [
        ['order.refunded', 'refunded', 2000],
        ['order.updated', 'refunded', 2000],
      ],
    );
  });

  it('lets only one of two refunds that together exceed the order through', async () => {
    const order = await paidOrder();
    const attempts = await Promise.allSettled([refund(order.id, 1200), refund(order.id, 1200)]);
    const accepted = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const refused = attempts.filter((attempt) => attempt.status === 'rejected');
    assert.equal(accepted.length, 1);
    assert.equal(refused.length, 1);
    assert.ok(refused[0]?.reason instanceof RefundAmountTooHigh);
    assert.match(refused[0].reason.detail, /remaining order balance: 800$/);

    await settled((accepted[0] as PromiseFulfilledResult<Refund>).value.id);
    const after = await orderOf(order.id);
    assert.deepEqual([after.status, after.refundedAmount], ['partially_refunded', 1200]);
  });

  it('refuses a refund above what is left, counting pending refunds, and writes nothing', async () => {
    const order = await paidOrder();
    await refund(order.id, 1500);
    await assert.rejects(refund(order.id, 501), (error: unknown) => {
      assert.ok(error instanceof RefundAmountTooHigh);
      assert.equal(error.detail, 'Refund amount exceeds remaining order balance: 500');
      return true;
    });
    assert.equal(await api.orm.em.fork().count(RefundRow, { order: order.id }), 1);
  });

  it('refuses any refund of a fully refunded order', async () => {
    const order = await paidOrder();
    await settled((await refund(order.id, 2000)).id);
    await assert.rejects(refund(order.id, 1), RefundedAlready);
  });

  it('answers a refund Stripe fails as failed, and frees its amount', async () => {
    const order = await paidOrder('pm_card_refundFail');
    const failed = await settled((await refund(order.id, 2000)).id);
    assert.equal(failed.status, 'failed');
    const row = await api.orm.em.fork().findOneOrFail(RefundRow, failed.id);
    assert.equal(row.failureReason, 'expired_or_canceled_card');
    const unchanged = await orderOf(order.id);
    assert.deepEqual([unchanged.status, unchanged.refundedAmount], ['paid', 0]);
    const again = await refund(order.id, 2000);
    assert.equal(again.status, 'pending');
  });

  it('refunds once at Stripe when its answers are lost or fail, retrying under one key', async () => {
    const order = await paidOrder();
    const payment = await api.orm.em.fork().findOneOrFail(Payment, { order: order.id });
    const paymentIntentId = payment.processorId ?? '';
    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    const refundCall = { path: '/v1/refunds', method: 'POST', bodyIncludes: paymentIntentId };
    // Stripe refunds but the answer is lost; then it fails (5xx) more often than the SDK retries.
    await simulator.injectFault({ ...refundCall, mode: 'lost' });
    await simulator.injectFault({ ...refundCall, mode: 'error', count: 3 });

    const retried = await settled((await refund(order.id, 1000)).id);
    assert.equal(retried.status, 'succeeded');
    assert.deepEqual(await simulator.pendingFaults(), []);
    assert.equal((await orderOf(order.id)).refundedAmount, 1000);
    // Stripe took one refund of 1000: the other 1000 of the charge is still refundable there.
    const stripe = createStripeClient(api.config.stripe);
    const rest = await stripe.refunds.create({ payment_intent: paymentIntentId, amount: 1000 });
    assert.equal(rest.status, 'pending');
  });

  it('survives a worker killed after Stripe took the refund: one refund, settled once', async () => {
    const order = await paidOrder();
    const workers = await workersOnOwnQueue(api, 'refund-restart');
    const { taskQueue, activities } = workers;
    let taken: () => void = () => {};
    const takenByStripe = new Promise<void>((resolve) => {
      taken = resolve;
    });
    // The first worker has Stripe refund, then dies before it can report it.
    const dyingAfterRefund = {
      ...activities,
      async createStripeRefund(input: Parameters<typeof activities.createStripeRefund>[0]) {
        await activities.createStripeRefund(input);
        taken();
        return Context.current().cancelled.then(() => {
          throw new Error('never reached: the worker stops first');
        });
      },
    };
    const original = await workers.start(dyingAfterRefund);
    let refundId = '';
    try {
      const created = await createRefund(
        api.orm.em.fork(),
        seller.organizationId,
        refundCreateInput.parse({ order_id: order.id, reason: 'other', amount: 1500 }),
        (id) =>
          api.temporal.workflow.start(refundWorkflow, {
            workflowId: workflowIds.refund(id),
            taskQueue,
            args: [{ refundId: id }],
          }),
      );
      refundId = created.id;
      await takenByStripe;
    } finally {
      await original.stop();
    }

    const restarted = await workers.start();
    try {
      assert.equal((await settled(refundId)).status, 'succeeded');
    } finally {
      await restarted.stop();
      await workers.close();
    }
    // Stripe took one refund of 1500: the other 500 of the charge is still refundable there.
    const payment = await api.orm.em.fork().findOneOrFail(Payment, { order: order.id });
    const stripe = createStripeClient(api.config.stripe);
    const rest = await stripe.refunds.create({
      payment_intent: payment.processorId ?? '',
      amount: 500,
    });
    assert.equal(rest.status, 'pending');
    const after = await orderOf(order.id);
    assert.deepEqual([after.status, after.refundedAmount], ['partially_refunded', 1500]);
  });

  it('asks Stripe itself a minute after a refund whose webhook never came', async () => {
    const order = await paidOrder();
    let workflowId = '';
    const created = await createRefund(
      api.orm.em.fork(),
      seller.organizationId,
      refundCreateInput.parse({ order_id: order.id, reason: 'other', amount: 700 }),
      (id) => {
        // Stripe's webhook names `refund:<id>`: this run hears nothing of it, as if it was lost.
        workflowId = `webhook-lost:${workflowIds.refund(id)}`;
        return api.temporal.workflow.start(refundWorkflow, {
          workflowId,
          taskQueue: taskQueues.main,
          args: [{ refundId: id }],
        });
      },
    );
    const handle = api.temporal.workflow.getHandle(workflowId);
    assert.equal(await handle.result(), 'succeeded');
    assert.equal((await settled(created.id)).status, 'succeeded');
    const events = (await handle.fetchHistory()).events ?? [];
    const waited = events.flatMap((event) => {
      const timeout = event.timerStartedEventAttributes?.startToFireTimeout?.seconds;
      return timeout ? [Number(timeout)] : [];
    });
    assert.deepEqual(waited, [60]);
    const asked = events.filter(
      (event) =>
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'retrieveStripeRefund',
    );
    assert.equal(asked.length, 1);
  });

  it('revokes the benefits of a one-time order when asked', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Refundable perk',
      properties: { note: null },
    });
    const product = await seller.polar.products.create({
      name: 'Perk pack',
      prices: [{ amountType: 'fixed', priceAmount: 1000 }],
    });
    await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const order = await paidOrder(undefined, product.id);
    const grantOf = (isRevoked: boolean) =>
      eventually(
        async () =>
          (await seller.polar.benefitGrants.list({ customerId: order.customerId })).result.items,
        (grants) => grants.length === 1 && grants[0]?.isRevoked === isRevoked,
        { what: isRevoked ? 'the grant revoked' : 'the grant given' },
      );
    await grantOf(false);

    await refund(order.id, 400, { revokeBenefits: true });
    const [revoked] = await grantOf(true);
    assert.equal(revoked?.benefitId, benefit.id);
  });

  it('refuses to revoke benefits with a refund of a subscription order', async () => {
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const order = await paidOrder(undefined, plan.id);
    const { status, body } = await callV1(api, seller.token, 'POST', '/v1/refunds/', {
      order_id: order.id,
      reason: 'other',
      amount: 100,
      revoke_benefits: true,
    });
    assert.equal(status, 400);
    assert.match(body.detail, /one-time purchase/);
  });

  it("answers another organization's order as not found, and hides refunds from it", async () => {
    const order = await paidOrder();
    await assert.rejects(
      other.polar.refunds.create({ orderId: order.id, amount: 100, reason: 'other' }),
      (error: unknown) => {
        assert.ok(error instanceof HTTPValidationError);
        assert.deepEqual(
          error.detail?.map((issue) => [issue.loc, issue.msg]),
          [[['body', 'order_id'], 'Order not found']],
        );
        return true;
      },
    );
    const created = await refund(order.id, 100);
    const read = await callV1(api, other.token, 'GET', `/v1/refunds/${created.id}`);
    assert.equal(read.status, 404);
    const listed = await other.polar.refunds.list({ orderId: order.id });
    assert.equal(listed.result.items.length, 0);
    const own = await callV1(api, seller.token, 'GET', `/v1/refunds/${created.id}`);
    assert.deepEqual([own.status, own.body.id, own.body.amount], [200, created.id, 100]);
  });

  it('lists refunds by order and outcome, newest first', async () => {
    const order = await paidOrder();
    const first = await settled((await refund(order.id, 100)).id);
    const second = await settled((await refund(order.id, 200)).id);
    const listed = await seller.polar.refunds.list({ orderId: order.id, succeeded: true });
    assert.deepEqual(
      listed.result.items.map((item) => item.id),
      [second.id, first.id],
    );
    const byAmount = await seller.polar.refunds.list({ orderId: order.id, sorting: ['amount'] });
    assert.deepEqual(
      byAmount.result.items.map((item) => item.amount),
      [100, 200],
    );
    const failed = await seller.polar.refunds.list({ orderId: order.id, succeeded: false });
    assert.equal(failed.result.items.length, 0);
  });

  it('refuses a refund of nothing or of an unknown reason', async () => {
    const order = await paidOrder();
    for (const body of [
      { order_id: order.id, reason: 'other', amount: 0 },
      { order_id: order.id, reason: 'changed_my_mind', amount: 100 },
    ]) {
      const { status } = await callV1(api, seller.token, 'POST', '/v1/refunds/', body);
      assert.equal(status, 422);
    }
    assert.equal(await api.orm.em.fork().count(RefundRow, { order: order.id }), 0);
  });

  it('takes the tax pro rata, rounding half up, and all that is left with the remainder', () => {
    const order = { netAmount: 1600, taxAmount: 400 };
    const cases: [amount: number, left: { amount: number; taxAmount: number }, tax: number][] = [
      [330, { amount: 1600, taxAmount: 400 }, 83],
      [2, { amount: 1600, taxAmount: 400 }, 1],
      [1, { amount: 1600, taxAmount: 400 }, 0],
      [1270, { amount: 1270, taxAmount: 317 }, 317],
      [1000, { amount: 1270, taxAmount: 200 }, 200],
    ];
    for (const [amount, left, tax] of cases) {
      assert.equal(refundTaxOf(order, amount, left), tax, `${amount} of ${left.amount}`);
    }
    assert.equal(refundTaxOf({ netAmount: 0, taxAmount: 0 }, 1, { amount: 5, taxAmount: 0 }), 0);
  });
});
