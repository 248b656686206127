import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Product } from '@polar-sh/sdk/models/components/product.js';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { advanceTestClock, subscribeOnTestClock } from './testing.ts';

// Every subscription here starts on its own test clock at this instant: its first period is
// January (31 days), so amounts that are multiples of 31 prorate to the cent.
const newYear = '2027-01-01T00:00:00.000Z';
const february = '2027-02-01T00:00:00.000Z';
const day = (n: number) => new Date(Date.parse(newYear) + n * 86_400_000).toISOString();

describe('subscription seats (PATCH /v1/subscriptions/{id} and the portal with {seats})', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let team: Product;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    team = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'seat_based', pricePerSeat: 3100 }],
    });
  });
  after(() => api.close());

  /** A subscription to the team plan with `seats`, bought at `newYear` on a clock of its own. */
  const subscribe = async (seats: number) => {
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      api,
      seller,
      team.id,
      newYear,
      seats,
    );
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    return { subscriptionId, customerId, clockId };
  };

  // The SDK (0.35.x) knows neither `seats` on a subscription nor the seats update: raw calls.
  const patch = (id: string, body: unknown, token = seller.token) =>
    callV1(api, token, 'PATCH', `/v1/subscriptions/${id}`, body);
  const wireOf = (id: string) => callV1(api, seller.token, 'GET', `/v1/subscriptions/${id}`);

  const ordersOf = async (customerId: string, billingReason: string) =>
    (await seller.polar.orders.list({ customerId })).result.items.filter(
      (order) => order.billingReason === billingReason,
    );

  /** An order's lines as [label, amount], by amount (lines written at once come in any order). */
  const linesOf = (order: { items: { label: string; amount: number }[] }) =>
    order.items
      .toSorted((a, b) => a.amount - b.amount)
      .map((item) => [item.label, item.amount] as const);

  it('carries the seats bought at checkout, and adds seats with invoice: the difference charged now', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(2);
    const bought = await wireOf(subscriptionId);
    assert.deepEqual([bought.body.seats, bought.body.amount], [2, 6200]);
    // The checkout's order names the seats as renewals do.
    const [purchase] = await ordersOf(customerId, 'subscription_create');
    assert.ok(purchase, 'the checkout’s order');
    assert.deepEqual(linesOf(purchase), [['Team plan (2 seats)', 6200]]);
    // 10 of 31 days used: 21/31 of each amount is left.
    await advanceTestClock(api, seller, clockId, day(10));

    const changed = await patch(subscriptionId, { seats: 3, proration_behavior: 'invoice' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.seats, changed.body.amount], [3, 9300]);
    const [order] = await ordersOf(customerId, 'subscription_update');
    assert.ok(order, 'a subscription_update order');
    assert.deepEqual([order.status, order.totalAmount], ['paid', 2100]);
    assert.deepEqual(linesOf(order), [
      ['Unused time on Team plan (2 seats)', -4200],
      ['Remaining time on Team plan (3 seats)', 6300],
    ]);
    const payments = await seller.polar.payments.list({ orderId: order.id });
    assert.deepEqual(
      payments.result.items.map((payment) => [payment.status, payment.amount]),
      [['succeeded', 2100]],
    );
  });

  it('adds seats with prorate: the difference and the new seat count billed by the renewal', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(2);
    // 21 of 31 days used: 10/31 of each amount is left.
    await advanceTestClock(api, seller, clockId, day(21));

    const changed = await patch(subscriptionId, { seats: 4, proration_behavior: 'prorate' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.seats, changed.body.amount], [4, 12400]);
    assert.deepEqual(await ordersOf(customerId, 'subscription_update'), []);

    await advanceTestClock(api, seller, clockId, february);
    const [renewal] = await eventually(
      () => ordersOf(customerId, 'subscription_cycle'),
      (orders) => orders.length === 1 && orders[0]?.status === 'paid',
      { what: 'the paid renewal order' },
    );
    assert.ok(renewal);
    // 4 seats × 3100, plus 4000 for the rest of January on 4 seats, less 2000 unused on 2.
    assert.equal(renewal.totalAmount, 14400);
    assert.deepEqual(linesOf(renewal), [
      ['Unused time on Team plan (2 seats)', -2000],
      ['Remaining time on Team plan (4 seats)', 4000],
      ['Team plan (4 seats)', 12400],
    ]);
  });

  it('refuses seats of a price that is not seat-based, below one, the same, and another organization’s', async () => {
    const fixed = await seller.polar.products.create({
      name: 'Solo plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 3100 }],
    });
    const solo = await subscribeOnTestClock(api, seller, fixed.id, newYear);
    const { subscriptionId } = await subscribe(2);

    const refusals = [
      [solo.subscriptionId, { seats: 2 }, 'not seat-based'],
      [subscriptionId, { seats: 0 }, 'at least 1 seat'],
      [subscriptionId, { seats: 2 }, 'already has 2 seats'],
    ] as const;
    for (const [id, body, says] of refusals) {
      const refused = await patch(id, body);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'seats'], JSON.stringify(body));
      assert.match(refused.body.detail[0].msg, new RegExp(says));
    }
    const elsewhere = await patch(subscriptionId, { seats: 3 }, other.token);
    assert.equal(elsewhere.status, 404, JSON.stringify(elsewhere.body));
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);
    assert.deepEqual([row.seats, row.amount, row.pendingItems], [2, 6200, []]);
  });

  it('lets the customer change seats in the portal, prorated as the organization says', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(3);
    const session = await seller.polar.customerSessions.create({ customerId });
    await advanceTestClock(api, seller, clockId, day(21));

    const portal = (body: unknown) =>
      callV1(
        api,
        session.token,
        'PATCH',
        `/v1/customer-portal/subscriptions/${subscriptionId}`,
        body,
      );
    const refused = await portal({ seats: 2, proration_behavior: 'invoice' });
    assert.equal(refused.status, 422, 'the customer does not choose the proration');

    // Down to 2 seats under the default `prorate`: 3000 unused, 2000 remaining, 1000 credited.
    const changed = await portal({ seats: 2 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.seats, changed.body.amount], [2, 6200]);
    assert.deepEqual(await seller.polar.customers.getBalance({ id: customerId }), {
      balance: 1000,
      currency: 'usd',
    });
  });
});
