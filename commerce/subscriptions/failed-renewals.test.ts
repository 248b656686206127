import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buy } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { declinedRenewal } from './testing.ts';

describe('failed renewals (/v1/subscriptions/failed-renewals)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  /** Two subscriptions whose first renewal was declined, cheaper first. */
  let declined: string[];

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    const healthy = await seller.polar.products.create({
      name: 'Paid up',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 700 }],
    });
    await buy(api, seller, healthy.id);
    // Each on its own clock: the first renewal on May 1 is declined.
    const plans = await Promise.all(
      [1000, 2500].map((amount) =>
        seller.polar.products.create({
          name: `Plan ${amount}`,
          recurringInterval: 'month',
          prices: [{ amountType: 'fixed', priceAmount: amount }],
        }),
      ),
    );
    declined = await Promise.all(
      plans.map((plan) =>
        declinedRenewal(api, seller, plan.id, {
          startAt: '2027-04-01T08:00:00Z',
          renewAt: '2027-05-01T08:00:00Z',
        }),
      ),
    );
  });
  after(() => api.close());

  const v1 = (path: string, token = seller.token) => callV1(api, token, 'GET', path);

  it('lists past-due subscriptions with their dunning and the renewal amount at risk', async () => {
    const listed = await v1('/v1/subscriptions/failed-renewals?sorting=-amount');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.items.map((item: { id: string }) => item.id),
      [...declined].reverse(),
    );
    const [first] = listed.body.items;
    assert.equal(first.status, 'past_due');
    assert.equal(first.amount_at_risk, 2500);
    assert.equal(first.product_name, 'Plan 2500');
    assert.match(first.customer_email, /^buyer-.*@example\.com$/);
    assert.equal(first.past_due_at, '2027-05-01T08:00:00.000Z');
    assert.equal(first.dunning_attempts, 1);
    // The first retry two days after the failure (the default dunning schedule).
    assert.equal(first.next_payment_attempt_at, '2027-05-03T08:00:00.000Z');
    assert.equal(first.last_payment_error.code, 'insufficient_funds');
    assert.deepEqual(listed.body.pagination, { total_count: 2, max_page: 1 });
  });

  it('totals every failed renewal per currency, whatever the page', async () => {
    const listed = await v1('/v1/subscriptions/failed-renewals?limit=1');
    assert.equal(listed.body.items.length, 1);
    assert.deepEqual(listed.body.totals, [{ currency: 'usd', count: 2, amount_at_risk: 3500 }]);
    const unpaid = await v1('/v1/subscriptions/failed-renewals?status=unpaid');
    assert.deepEqual([unpaid.body.items, unpaid.body.totals], [[], []]);
  });

  it('refuses an unknown sorting criterion or status', async () => {
    const sorting = await v1('/v1/subscriptions/failed-renewals?sorting=created_at');
    assert.equal(sorting.status, 422);
    const status = await v1('/v1/subscriptions/failed-renewals?status=active');
    assert.equal(status.status, 422);
  });

  it('shows another organization none of them', async () => {
    const listed = await v1('/v1/subscriptions/failed-renewals', other.token);
    assert.equal(listed.status, 200);
    assert.deepEqual([listed.body.items, listed.body.totals], [[], []]);
  });

  it('answers an action it does not know, inherited names included, as not found', async () => {
    for (const action of ['refund', 'toString', 'constructor', '__proto__']) {
      const answer = await callV1(
        api,
        seller.token,
        'POST',
        `/v1/subscriptions/${declined[0]}/dunning/${action}`,
      );
      assert.equal(answer.status, 404, `${action}: ${JSON.stringify(answer.body)}`);
    }
  });

  it('leaves the list once finance marks the renewal resolved', async () => {
    const [resolvedId, stillDeclined] = declined;
    const resolved = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/subscriptions/${resolvedId}/dunning/resolve`,
    );
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    const listed = await v1('/v1/subscriptions/failed-renewals');
    assert.deepEqual(
      listed.body.items.map((item: { id: string }) => item.id),
      [stillDeclined],
    );
    assert.deepEqual(listed.body.totals, [{ currency: 'usd', count: 1, amount_at_risk: 2500 }]);
  });
});
