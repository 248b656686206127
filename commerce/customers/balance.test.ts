import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { CustomerBalanceEntry, Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { openRenewalOrder } from '../subscriptions/lifecycle.ts';
import { advanceTestClock, subscribeOnTestClock } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { addBalanceEntry } from './balance.ts';

const newYear = '2027-01-01T00:00:00.000Z';
const february = '2027-02-01T00:00:00.000Z';
const march = '2027-03-01T00:00:00.000Z';

describe('customer balance (GET /v1/customers/{id}/balance and its ledger)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
  });
  after(() => api.close());

  const monthlyPlan = (priceAmount: number) =>
    seller.polar.products.create({
      name: `Plan ${priceAmount}`,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount }],
    });

  const balanceOf = (customerId: string) => seller.polar.customers.getBalance({ id: customerId });

  const entriesOf = async (customerId: string, token = seller.token) => {
    const listed = await callV1(api, token, 'GET', `/v1/customers/${customerId}/balance/entries`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.items as {
      kind: string;
      amount: number;
      reason: string;
      order_id: string;
    }[];
  };

  const adjust = (customerId: string, body: unknown, token = seller.token) =>
    callV1(api, token, 'POST', `/v1/customers/${customerId}/balance/adjustments`, body);

  /** A $15 plan's subscription on a clock of its own, whose next renewal takes `credit` off. */
  async function subscribedWithCredit(credit: number) {
    const plan = await monthlyPlan(1500);
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, plan.id, newYear);
    await api.orm.em.fork().nativeUpdate(Subscription, subscriptionId, {
      pendingItems: [{ label: 'Unused time on Max', amount: -credit, productPriceId: null }],
    });
    const subscription = await seller.polar.subscriptions.get({ id: subscriptionId });
    return { subscription, clockId };
  }

  const renewalOrders = (customerId: string, count: number) =>
    eventually(
      async () =>
        (await seller.polar.orders.list({ customerId, sorting: ['created_at'] })).result.items
          .filter((order) => order.billingReason === 'subscription_cycle')
          .filter((order) => order.status === 'paid'),
      (orders) => orders.length === count,
      { what: `${count} paid renewal orders` },
    );

  it('a renewal that goes negative credits the balance, and the next renewal spends it before the card', async () => {
    const { subscription, clockId } = await subscribedWithCredit(2000);

    await advanceTestClock(api, seller, clockId, february);
    const [credited] = await renewalOrders(subscription.customerId, 1);
    // 1500 − 2000: nothing billed, 500 left to the customer.
    assert.deepEqual([credited?.totalAmount, credited?.fromBalanceAmount], [0, 0]);
    assert.deepEqual(await balanceOf(subscription.customerId), { balance: 500, currency: 'usd' });
    const [credit] = await entriesOf(subscription.customerId);
    assert.deepEqual(
      [credit?.kind, credit?.amount, credit?.order_id],
      ['renewal_credit', 500, credited?.id],
    );
    const state = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/customers/${subscription.customerId}/state`,
    );
    assert.deepEqual(state.body.balance, { balance: 500, currency: 'usd' });

    await advanceTestClock(api, seller, clockId, march);
    const [, used] = await renewalOrders(subscription.customerId, 2);
    assert.deepEqual([used?.totalAmount, used?.fromBalanceAmount], [1500, 500]);
    const payments = await seller.polar.payments.list({ orderId: used?.id ?? '' });
    assert.deepEqual(
      payments.result.items.map((payment) => [payment.status, payment.amount]),
      [['succeeded', 1000]],
      'the card paid the total less the balance used',
    );
    assert.deepEqual(await balanceOf(subscription.customerId), { balance: 0, currency: 'usd' });
    const [debit] = await entriesOf(subscription.customerId);
    assert.deepEqual(
      [debit?.kind, debit?.amount, debit?.order_id],
      ['order_debit', -500, used?.id],
    );
  });

  it('a seller adjustment credits the balance, with who and why kept on its entry', async () => {
    const customer = await seller.polar.customers.create({ email: `${randomUUID()}@example.com` });
    assert.deepEqual(await balanceOf(customer.id), { balance: 0, currency: 'usd' });

    const added = await adjust(customer.id, {
      amount: 1200,
      currency: 'usd',
      reason: 'Outage credit',
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.deepEqual(added.body.balance, { balance: 1200, currency: 'usd' });
    const taken = await adjust(customer.id, {
      amount: -200,
      currency: 'usd',
      reason: 'Correction',
    });
    assert.deepEqual(taken.body.balance, { balance: 1000, currency: 'usd' });

    assert.deepEqual(await balanceOf(customer.id), { balance: 1000, currency: 'usd' });
    // The customer state carries it, and the customer sees it in its portal (Tollgate's field,
    // beside Polar's): the SDK reads both answers, checked against the OpenAPI document, which
    // the SDK's models do not keep; the raw answers show the balance.
    const state = await seller.polar.customers.getState({ id: customer.id });
    assert.equal(state.id, customer.id);
    const rawState = await callV1(api, seller.token, 'GET', `/v1/customers/${customer.id}/state`);
    assert.deepEqual(rawState.body.balance, { balance: 1000, currency: 'usd' });
    const session = await seller.polar.customerSessions.create({ customerId: customer.id });
    const me = await seller.polar.customerPortal.customers.get({ customerSession: session.token });
    assert.equal(me.id, customer.id);
    const profile = await callV1(api, session.token, 'GET', '/v1/customer-portal/customers/me');
    assert.deepEqual(profile.body.balance, { balance: 1000, currency: 'usd' });
    assert.deepEqual(
      (await entriesOf(customer.id)).map((entry) => [entry.kind, entry.amount, entry.reason]),
      [
        ['seller_adjustment', -200, 'Correction'],
        ['seller_adjustment', 1200, 'Outage credit'],
      ],
    );
  });

  it('answers 404 to another organization, and changes nothing', async () => {
    const customer = await seller.polar.customers.create({ email: `${randomUUID()}@example.com` });
    await assert.rejects(other.polar.customers.getBalance({ id: customer.id }), ResourceNotFound);
    const refused = await adjust(
      customer.id,
      { amount: 500, currency: 'usd', reason: 'x' },
      other.token,
    );
    assert.equal(refused.status, 404);
    const listed = await callV1(
      api,
      other.token,
      'GET',
      `/v1/customers/${customer.id}/balance/entries`,
    );
    assert.equal(listed.status, 404);
    assert.deepEqual(await balanceOf(customer.id), { balance: 0, currency: 'usd' });
  });

  it('refuses a zero, fractional or missing amount, another currency and a blank reason with 422', async () => {
    const customer = await seller.polar.customers.create({ email: `${randomUUID()}@example.com` });
    const cases: [unknown, string][] = [
      [{ amount: 0, currency: 'usd', reason: 'Zero' }, 'amount'],
      [{ amount: 1.5, currency: 'usd', reason: 'Half a cent' }, 'amount'],
      [{ currency: 'usd', reason: 'None' }, 'amount'],
      [{ amount: 500, currency: 'eur', reason: 'Euros' }, 'currency'],
      [{ amount: 500, currency: 'usd', reason: '   ' }, 'reason'],
      [{ amount: 500, currency: 'usd' }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const refused = await adjust(customer.id, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, ['body', field], JSON.stringify(refused.body));
    }
    assert.deepEqual(await entriesOf(customer.id), []);
  });

  it('writes each entry once, however often its source runs', async () => {
    const { subscription } = await subscribedWithCredit(1800);
    const periodEnd = new Date(subscription.currentPeriodEnd as Date);
    // What a retried renewal activity does: the same period's order, opened twice.
    const first = await openRenewalOrder(api.orm.em.fork(), subscription.id, periodEnd);
    const second = await openRenewalOrder(api.orm.em.fork(), subscription.id, periodEnd);
    assert.equal(second.orderId, first.orderId);
    assert.deepEqual(await balanceOf(subscription.customerId), { balance: 300, currency: 'usd' });

    const entry = {
      organizationId: seller.organizationId,
      customerId: subscription.customerId,
      currency: 'usd',
      amount: 700,
      kind: 'proration_credit' as const,
      reason: 'Unused time on Max',
      idempotencyKey: `subscription-update:${randomUUID()}`,
    };
    const added = await api.orm.em.fork().transactional((tx) => addBalanceEntry(tx, entry));
    const again = await api.orm.em.fork().transactional((tx) => addBalanceEntry(tx, entry));
    assert.deepEqual([added, again], [true, false]);
    const rows = await api.orm.em
      .fork()
      .count(CustomerBalanceEntry, { customer: subscription.customerId });
    assert.equal(rows, 2);
    assert.deepEqual(await balanceOf(subscription.customerId), { balance: 1000, currency: 'usd' });
  });
});
