import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Order, Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { advanceTestClock, subscribeOnTestClock } from '../subscriptions/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

const newYear = '2027-01-01T00:00:00.000Z';
const day = (n: number) => new Date(Date.parse(newYear) + n * 86_400_000).toISOString();

describe('deleting a customer (DELETE /v1/customers/{id})', () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  it('ends its subscriptions now, before revoking its benefits: no renewal charges it afterwards', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Members area',
      properties: {},
    });
    const plan = await seller.polar.products.create({
      name: 'Membership',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 3100 }],
    });
    await seller.polar.products.updateBenefits({
      id: plan.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, plan.id, newYear);
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const grantOf = async () => {
      const page = await seller.polar.benefitGrants.list({ customerId });
      return page.result.items.find((grant) => grant.benefitId === benefit.id);
    };
    await eventually(grantOf, (grant) => grant?.isGranted === true, { what: 'benefit granted' });
    await advanceTestClock(api, seller, clockId, day(10));
    const ordersBefore = await api.orm.em.fork().count(Order, { subscription: subscriptionId });

    await seller.polar.customers.delete({ id: customerId });
    await assert.rejects(seller.polar.customers.get({ id: customerId }), ResourceNotFound);
    const ended = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(ended.status, 'canceled');
    assert.equal(ended.endedAt?.toISOString(), day(10));
    assert.equal(ended.cancelAtPeriodEnd, false);
    await eventually(grantOf, (grant) => grant?.isRevoked === true, { what: 'benefit revoked' });

    // Past the period's end (and a month more): nothing renews, nothing is charged.
    await advanceTestClock(api, seller, clockId, day(65));
    const em = api.orm.em.fork();
    assert.equal(await em.count(Order, { subscription: subscriptionId }), ordersBefore);
    assert.equal(
      await em.count(Order, { subscription: subscriptionId, billingReason: 'subscription_cycle' }),
      0,
    );
    const row = await em.findOneOrFail(Subscription, subscriptionId);
    assert.equal(row.status, 'canceled');
    assert.equal(row.nextPaymentAttemptAt ?? null, null);
  });

  it('deletes a customer whose subscription already ended, and one without any', async () => {
    const plan = await seller.polar.products.create({
      name: 'Plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 3100 }],
    });
    const { subscriptionId } = await subscribeOnTestClock(api, seller, plan.id, newYear);
    const revoked = await seller.polar.subscriptions.revoke({ id: subscriptionId });
    await seller.polar.customers.delete({ id: revoked.customerId });
    await assert.rejects(seller.polar.customers.get({ id: revoked.customerId }), ResourceNotFound);

    const plain = await seller.polar.customers.create({ email: 'no-plan@example.com' });
    await seller.polar.customers.delete({ id: plain.id });
    await assert.rejects(seller.polar.customers.get({ id: plain.id }), ResourceNotFound);
  });
});
