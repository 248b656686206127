import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { buy } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('subscriptions (/v1/subscriptions, read side)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let monthly: Order;
  let yearly: Order;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const plans = await Promise.all(
      (['month', 'year'] as const).map((interval, index) =>
        seller.polar.products.create({
          name: `Plan ${interval}`,
          recurringInterval: interval,
          prices: [{ amountType: 'fixed', priceAmount: 1000 * (index + 1) }],
        }),
      ),
    );
    const bought = await Promise.all(plans.map((plan) => buy(api, seller, plan.id)));
    const orders = bought.map(({ order }) => order);
    assert.ok(orders.every((order) => order?.subscriptionId));
    [monthly, yearly] = orders as [Order, Order];
  });
  after(() => api.close());

  it('answers a subscription started by a checkout, with its product, customer and prices', async () => {
    const subscription = await seller.polar.subscriptions.get({ id: monthly.subscriptionId ?? '' });
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.amount, 1000);
    assert.equal(subscription.recurringInterval, 'month');
    assert.equal(subscription.checkoutId, monthly.checkoutId);
    assert.equal(subscription.customer.id, monthly.customerId);
    assert.equal(subscription.product.id, monthly.productId);
    assert.deepEqual(
      subscription.prices.map((price) => price.id),
      [monthly.items[0]?.productPriceId],
    );
    assert.equal(subscription.cancelAtPeriodEnd, false);
    assert.ok(subscription.startedAt);
  });

  it('lists with filters and sorting', async () => {
    const ids = async (request: Parameters<Seller['polar']['subscriptions']['list']>[0]) =>
      (await seller.polar.subscriptions.list(request)).result.items.map((item) => item.id);
    assert.deepEqual(await ids({ sorting: ['-amount'] }), [
      yearly.subscriptionId,
      monthly.subscriptionId,
    ]);
    assert.deepEqual(await ids({ productId: yearly.productId }), [yearly.subscriptionId]);
    assert.deepEqual(await ids({ customerId: monthly.customerId }), [monthly.subscriptionId]);
    assert.equal((await ids({ active: true })).length, 2);
    assert.deepEqual(await ids({ active: false }), []);
    const bad = await callV1(api, seller.token, 'GET', '/v1/subscriptions/?sorting=created');
    assert.equal(bad.status, 422);
  });

  it("keeps organizations apart: another seller's subscriptions are not found", async () => {
    await assert.rejects(
      other.polar.subscriptions.get({ id: monthly.subscriptionId ?? '' }),
      ResourceNotFound,
    );
    assert.equal((await other.polar.subscriptions.list({})).result.pagination.totalCount, 0);
  });
});
