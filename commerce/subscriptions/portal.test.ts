import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Product } from '@polar-sh/sdk/models/components/product.js';
import { AlreadyCanceledSubscription } from '@polar-sh/sdk/models/errors/alreadycanceledsubscription.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { buy } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { advanceTestClock, subscribeOnTestClock } from './testing.ts';

// Every subscription here starts on its own test clock at this instant: its first period is
// January (31 days), so amounts that are multiples of 31 prorate to the cent.
const newYear = '2027-01-01T00:00:00.000Z';
const day = (n: number) => new Date(Date.parse(newYear) + n * 86_400_000).toISOString();

describe('customer portal subscriptions (/v1/customer-portal/subscriptions)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let basic: Product;
  let pro: Product;

  const monthlyPlan = (owner: Seller, priceAmount: number, name = `Plan ${priceAmount}`) =>
    owner.polar.products.create({
      name,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount }],
    });

  /**
   * A new customer of `owner` subscribed to `productId` at `newYear` on a clock of its own, with
   * a portal session: answers the subscription's and customer's ids, the clock and the token.
   */
  async function subscribedCustomer(owner: Seller, productId: string) {
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, owner, productId, newYear);
    const { customerId } = await owner.polar.subscriptions.get({ id: subscriptionId });
    const session = await owner.polar.customerSessions.create({ customerId });
    return { subscriptionId, customerId, clockId, security: { customerSession: session.token } };
  }

  /** The portal's raw answer, for what the SDK would refuse to send. */
  const portal = (token: string, method: string, path: string, body?: unknown) =>
    callV1(api, token, method, `/v1/customer-portal/subscriptions/${path}`, body);

  /** Sets the organization's subscription settings (the rest as the defaults). */
  const settle = async (
    owner: Seller,
    settings: { proration_behavior?: 'invoice' | 'prorate'; allow_customer_updates?: boolean },
  ) => {
    const answer = await callV1(
      api,
      owner.token,
      'PATCH',
      `/v1/organizations/${owner.organizationId}`,
      {
        subscription_settings: {
          allow_multiple_subscriptions: false,
          allow_customer_updates: true,
          proration_behavior: 'prorate',
          ...settings,
        },
      },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    [basic, pro] = await Promise.all([
      monthlyPlan(seller, 3100, 'Basic'),
      monthlyPlan(seller, 6200, 'Pro'),
    ]);
  });
  after(() => api.close());

  it('lists and gets only the customer’s own subscriptions, as the customer sees them', async () => {
    const own = await subscribedCustomer(seller, basic.id);
    const stranger = await subscribedCustomer(seller, pro.id);
    const { security } = own;
    const polar = seller.polar.customerPortal.subscriptions;

    const got = await polar.get(security, { id: own.subscriptionId });
    assert.equal(got.id, own.subscriptionId);
    assert.equal(got.customerId, own.customerId);
    assert.equal(got.status, 'active');
    assert.equal(got.amount, 3100);
    assert.equal(got.product.id, basic.id);
    assert.equal(got.product.organization.id, seller.organizationId);
    assert.deepEqual(
      got.prices.map((price) => price.id),
      basic.prices.map((price) => price.id),
    );
    assert.equal(got.isPolarManaged, true);
    // The seller's own fields stay the seller's.
    const raw = await portal(security.customerSession, 'GET', own.subscriptionId);
    assert.equal(raw.status, 200);
    for (const key of ['metadata', 'custom_field_data', 'customer', 'discount']) {
      assert.ok(!(key in raw.body), `no ${key}`);
    }
    assert.ok(!('metadata' in raw.body.product), 'no product metadata');

    const ids = async (request: Parameters<typeof polar.list>[1]) =>
      (await polar.list(security, request)).result.items.map((item) => item.id);
    assert.deepEqual(await ids({}), [own.subscriptionId]);
    assert.deepEqual(await ids({ productId: basic.id }), [own.subscriptionId]);
    assert.deepEqual(await ids({ active: true }), [own.subscriptionId]);
    assert.deepEqual(await ids({ active: false }), []);
    assert.deepEqual(await ids({ query: 'basi' }), [own.subscriptionId]);
    assert.deepEqual(await ids({ query: 'Pro' }), []);
    assert.deepEqual(await ids({ organizationId: seller.organizationId }), [own.subscriptionId]);
    assert.deepEqual(await ids({ organizationId: other.organizationId }), []);
    assert.deepEqual(await ids({ sorting: ['-amount', 'product'] }), [own.subscriptionId]);
    // Another customer's subscription is not found, nor listed through any filter.
    assert.deepEqual(await ids({ productId: pro.id }), []);
    await assert.rejects(polar.get(security, { id: stranger.subscriptionId }), ResourceNotFound);

    const badSorting = await portal(security.customerSession, 'GET', '?sorting=customer');
    assert.equal(badSorting.status, 422);
    const badFilter = await portal(security.customerSession, 'GET', '?active=maybe');
    assert.equal(badFilter.status, 422);
    const badId = await portal(security.customerSession, 'GET', 'not-an-id');
    assert.equal(badId.status, 422);
    const anonymous = await callV1(api, null, 'GET', '/v1/customer-portal/subscriptions/');
    assert.equal(anonymous.status, 401);
  });

  it('shows the usage of a metered plan, each meter named only', async () => {
    const meter = await seller.polar.meters.create({
      name: 'API calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'call' }],
      },
      aggregation: { func: 'count' },
    });
    const usagePlan = await seller.polar.products.create({
      name: 'Usage',
      recurringInterval: 'month',
      prices: [
        { amountType: 'fixed', priceAmount: 1000 },
        { amountType: 'metered_unit', meterId: meter.id, unitAmount: 50 },
      ],
    });
    // Bought now, off any test clock: usage is ingested at the real time.
    const { order } = await buy(api, seller, usagePlan.id);
    assert.ok(order?.subscriptionId);
    const { subscriptionId, customerId } = order;
    const session = await seller.polar.customerSessions.create({ customerId });
    const security = { customerSession: session.token };
    await seller.polar.events.ingest({
      events: [1, 2, 3].map(() => ({ name: 'call', customerId })),
    });
    const seen = await eventually(
      () => seller.polar.customerPortal.subscriptions.get(security, { id: subscriptionId }),
      (found) => found.meters[0]?.consumedUnits === 3,
      { what: 'the metered usage in the portal' },
    );
    assert.equal(seen.meters.length, 1);
    const [usage] = seen.meters;
    assert.equal(usage?.meterId, meter.id);
    assert.equal(usage?.amount, 150);
    assert.deepEqual(usage?.meter, {
      id: meter.id,
      createdAt: meter.createdAt,
      modifiedAt: meter.modifiedAt,
      name: 'API calls',
    });
    assert.deepEqual(
      seen.prices.map((price) => price.id).sort(),
      usagePlan.prices.map((price) => price.id).sort(),
    );
  });

  it('cancels at the period end with the customer’s reason and comment, then takes it back', async () => {
    const { subscriptionId, clockId, security } = await subscribedCustomer(seller, basic.id);
    await advanceTestClock(api, seller, clockId, day(5));
    const polar = seller.polar.customerPortal.subscriptions;

    const canceled = await polar.update(security, {
      id: subscriptionId,
      customerSubscriptionUpdate: {
        cancelAtPeriodEnd: true,
        cancellationReason: 'too_expensive',
        cancellationComment: 'Cheaper elsewhere',
      },
    });
    assert.equal(canceled.status, 'active');
    assert.equal(canceled.cancelAtPeriodEnd, true);
    assert.equal(canceled.canceledAt?.toISOString(), day(5));
    assert.equal(canceled.endsAt?.toISOString(), day(31));
    assert.equal(canceled.customerCancellationReason, 'too_expensive');
    assert.equal(canceled.customerCancellationComment, 'Cheaper elsewhere');
    // The seller sees the same subscription, with the customer's words.
    const seen = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(seen.cancelAtPeriodEnd, true);
    assert.equal(seen.customerCancellationComment, 'Cheaper elsewhere');

    const uncanceled = await polar.update(security, {
      id: subscriptionId,
      customerSubscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    assert.equal(uncanceled.cancelAtPeriodEnd, false);
    assert.equal(uncanceled.canceledAt, null);
    assert.equal(uncanceled.endsAt, null);
    assert.equal(uncanceled.customerCancellationReason, null);

    // DELETE is the customer's cancel: at the period end, not now; asked again, the same.
    const deleted = await polar.cancel(security, { id: subscriptionId });
    assert.equal(deleted.status, 'active');
    assert.equal(deleted.cancelAtPeriodEnd, true);
    assert.equal(deleted.endsAt?.toISOString(), day(31));
    const again = await polar.cancel(security, { id: subscriptionId });
    assert.equal(again.cancelAtPeriodEnd, true);
    assert.equal(again.canceledAt?.toISOString(), day(5));
  });

  it('changes the plan as the organization prorates: credited to the next renewal, or charged now', async () => {
    const { subscriptionId, clockId, security } = await subscribedCustomer(seller, basic.id);
    // 10 of 31 days used: 21/31 of each amount is left.
    await advanceTestClock(api, seller, clockId, day(10));
    const polar = seller.polar.customerPortal.subscriptions;

    // The organization's default, prorate: the difference waits for the next renewal.
    const upgraded = await polar.update(security, {
      id: subscriptionId,
      customerSubscriptionUpdate: { productId: pro.id },
    });
    assert.equal(upgraded.productId, pro.id);
    assert.equal(upgraded.product.name, 'Pro');
    assert.equal(upgraded.amount, 6200);
    assert.deepEqual(
      upgraded.prices.map((price) => price.id),
      pro.prices.map((price) => price.id),
    );
    const pending = await api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);
    assert.deepEqual(
      pending.pendingItems.map((item) => item.amount).toSorted((a, b) => a - b),
      [-2100, 4200],
    );
    const ordersOf = async (owner: Seller) =>
      (await owner.polar.orders.list({ customerId: upgraded.customerId })).result.items.filter(
        (order) => order.billingReason === 'subscription_update',
      );
    assert.deepEqual(await ordersOf(seller), []);

    // Invoice: a seller of its own, whose customer's upgrade is charged at once.
    const invoicing = await createSeller(api);
    await settle(invoicing, { proration_behavior: 'invoice' });
    const [small, large] = await Promise.all([
      monthlyPlan(invoicing, 3100),
      monthlyPlan(invoicing, 6200),
    ]);
    const customer = await subscribedCustomer(invoicing, small.id);
    await advanceTestClock(api, invoicing, customer.clockId, day(10));
    const charged = await invoicing.polar.customerPortal.subscriptions.update(customer.security, {
      id: customer.subscriptionId,
      customerSubscriptionUpdate: { productId: large.id },
    });
    assert.equal(charged.productId, large.id);
    const [order] = (
      await invoicing.polar.orders.list({ customerId: charged.customerId })
    ).result.items.filter((found) => found.billingReason === 'subscription_update');
    assert.ok(order, 'a subscription_update order');
    assert.equal(order.status, 'paid');
    assert.equal(order.totalAmount, 2100);
  });

  it('refuses plans the customer may not move to, and changes nothing', async () => {
    const { subscriptionId, security } = await subscribedCustomer(seller, basic.id);
    const [yearly, oneTime, archived, foreign] = await Promise.all([
      seller.polar.products.create({
        name: 'Yearly',
        recurringInterval: 'year',
        prices: [{ amountType: 'fixed', priceAmount: 30000 }],
      }),
      seller.polar.products.create({
        name: 'Ebook',
        prices: [{ amountType: 'fixed', priceAmount: 900 }],
      }),
      monthlyPlan(seller, 9300, 'Retired'),
      monthlyPlan(other, 6200, 'Elsewhere'),
    ]);
    await seller.polar.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    for (const product of [yearly, oneTime, archived, foreign]) {
      const refused = await portal(security.customerSession, 'PATCH', subscriptionId, {
        product_id: product.id,
      });
      assert.equal(refused.status, 422, `${product.name}: ${JSON.stringify(refused.body)}`);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'product_id']);
    }
    // A seller that does not let customers change their subscriptions.
    const closed = await createSeller(api);
    await settle(closed, { allow_customer_updates: false });
    const [current, next] = await Promise.all([
      monthlyPlan(closed, 3100),
      monthlyPlan(closed, 6200),
    ]);
    const customer = await subscribedCustomer(closed, current.id);
    await assert.rejects(
      closed.polar.customerPortal.subscriptions.update(customer.security, {
        id: customer.subscriptionId,
        customerSubscriptionUpdate: { productId: next.id },
      }),
      HTTPValidationError,
    );
    // Canceling stays the customer's to ask.
    const canceled = await closed.polar.customerPortal.subscriptions.cancel(customer.security, {
      id: customer.subscriptionId,
    });
    assert.equal(canceled.productId, current.id);
    assert.equal(canceled.cancelAtPeriodEnd, true);

    const unchanged = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(unchanged.productId, basic.id);
    assert.equal(unchanged.amount, 3100);
  });

  it('answers bad bodies 422, another customer’s subscription 404, and an ended one 403', async () => {
    const own = await subscribedCustomer(seller, basic.id);
    const stranger = await subscribedCustomer(seller, basic.id);
    const token = own.security.customerSession;
    for (const body of [
      {},
      { product_id: 'basic' },
      { product_id: pro.id, cancel_at_period_end: true },
      { product_id: pro.id, proration_behavior: 'invoice' },
      { cancel_at_period_end: 'yes' },
      { cancel_at_period_end: true, cancellation_reason: 'bored' },
      { cancel_at_period_end: true, cancellation_comment: 'x'.repeat(10_001) },
      { cancellation_reason: 'unused' },
    ]) {
      const refused = await portal(token, 'PATCH', own.subscriptionId, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
    }
    assert.equal(
      (await seller.polar.subscriptions.get({ id: own.subscriptionId })).cancelAtPeriodEnd,
      false,
    );

    const polar = seller.polar.customerPortal.subscriptions;
    const theirs = { id: stranger.subscriptionId };
    await assert.rejects(polar.get(own.security, theirs), ResourceNotFound);
    await assert.rejects(polar.cancel(own.security, theirs), ResourceNotFound);
    await assert.rejects(
      polar.update(own.security, {
        ...theirs,
        customerSubscriptionUpdate: { cancelAtPeriodEnd: true },
      }),
      ResourceNotFound,
    );
    assert.equal(
      (await seller.polar.subscriptions.get({ id: stranger.subscriptionId })).cancelAtPeriodEnd,
      false,
    );

    // Revoked by the seller: the customer can change nothing of it any more.
    await seller.polar.subscriptions.revoke({ id: own.subscriptionId });
    const mine = { id: own.subscriptionId };
    await assert.rejects(polar.cancel(own.security, mine), AlreadyCanceledSubscription);
    for (const customerSubscriptionUpdate of [
      { cancelAtPeriodEnd: false },
      { cancelAtPeriodEnd: true },
      { productId: pro.id },
    ]) {
      await assert.rejects(
        polar.update(own.security, { ...mine, customerSubscriptionUpdate }),
        AlreadyCanceledSubscription,
      );
    }
    const ended = await polar.get(own.security, mine);
    assert.equal(ended.status, 'canceled');
    assert.deepEqual(
      (await polar.list(own.security, { active: false })).result.items.map((item) => item.id),
      [own.subscriptionId],
    );
  });
});
