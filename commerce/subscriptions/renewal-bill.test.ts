import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CustomerState } from '@polar-sh/sdk/models/components/customerstate.js';
import type { Product } from '@polar-sh/sdk/models/components/product.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createBenefitGrantActivities } from '../../activities/benefit-grants.ts';
import { Subscription } from '../../db/entities/index.ts';
import type { PendingSubscriptionItem } from '../../db/entities/subscription.ts';
import { eventually } from '../../devstack/eventually.ts';
import { addMonths } from '../../domain/discounts.ts';
import { buy, buyerDetails } from '../orders/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { type BilledPeriod, meteredCharge, type RenewalBill, renewalBill } from './renewal-bill.ts';

// The in-process worker logs every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

const tag = () => randomBytes(5).toString('hex');

describe('what a renewal bills (renewalBill) and the subscription’s meters', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let tokensMeterId: string;
  let callsMeterId: string;
  /** Fixed $10 a month, tokens at 0.5¢ (100 credited each period), calls at $2 capped at $5. */
  let usagePlan: Product;

  const em = () => api.orm.em.fork();

  /** The subscription a purchase of `productId` started (with a pay-what-you-want amount). */
  async function subscribe(
    productId: string,
    create: { amount?: number; discountId?: string } = {},
  ) {
    const { order } = await buy(api, seller, productId, buyerDetails(), create);
    assert.ok(order?.subscriptionId, 'the purchase started a subscription');
    return em().findOneOrFail(Subscription, order.subscriptionId);
  }

  /** The bill of the period after `closed`, as the renewal activity asks for it. */
  const bill = (subscriptionId: string, closed: BilledPeriod): Promise<RenewalBill> =>
    em().transactional(async (tx) => {
      const subscription = await tx.findOneOrFail(Subscription, subscriptionId);
      const next = { start: closed.end, end: addMonths(closed.end, 1) };
      return renewalBill(tx, subscription, closed, next);
    });

  const firstPeriod = (subscription: Subscription): BilledPeriod => ({
    start: subscription.currentPeriodStart,
    end: subscription.currentPeriodEnd ?? addMonths(subscription.currentPeriodStart, 1),
  });

  const plan = (prices: Parameters<Seller['polar']['products']['create']>[0]['prices']) =>
    seller.polar.products.create({ name: `Plan ${tag()}`, recurringInterval: 'month', prices });

  const setPendingItems = (subscriptionId: string, pendingItems: PendingSubscriptionItem[]) =>
    em().nativeUpdate(Subscription, { id: subscriptionId }, { pendingItems });

  const sumOf = (items: { amount: number }[]) => items.reduce((sum, item) => sum + item.amount, 0);

  /** Σ items = subtotal, net = subtotal − discount, total = net + tax (reference §4.10). */
  function assertConsistent(renewal: RenewalBill) {
    assert.equal(sumOf(renewal.items), renewal.subtotalAmount);
    assert.equal(renewal.netAmount, renewal.subtotalAmount - renewal.discountAmount);
    assert.equal(renewal.totalAmount, renewal.netAmount + renewal.taxAmount);
  }

  /** API calls of the subscription's customer, now: three of 1100.5 tokens in all by default. */
  async function callApi(subscription: Subscription, calls = [400.25, 400.25, 300]) {
    const customerId = subscription.customer.id;
    const result = await seller.polar.events.ingest({
      events: calls.map((tokens) => ({ name: 'api_call', customerId, metadata: { tokens } })),
    });
    assert.equal(result.inserted, calls.length);
  }

  /** Once the subscription's meter credit benefit credited its customer. */
  const credited = (subscription: Subscription) =>
    eventually(
      () => seller.polar.customers.getState({ id: subscription.customer.id }),
      (state) => state.activeMeters.some((meter) => meter.creditedUnits === 100),
      { what: 'the meter credit granted' },
    );

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const apiCalls = {
      conjunction: 'and' as const,
      clauses: [{ property: 'name', operator: 'eq' as const, value: 'api_call' }],
    };
    const [tokens, calls] = await Promise.all([
      seller.polar.meters.create({
        name: 'Tokens',
        filter: apiCalls,
        aggregation: { func: 'sum', property: 'tokens' },
      }),
      seller.polar.meters.create({
        name: 'Calls',
        filter: apiCalls,
        aggregation: { func: 'count' },
      }),
    ]);
    tokensMeterId = tokens.id;
    callsMeterId = calls.id;
    usagePlan = await plan([
      { amountType: 'fixed', priceAmount: 1000 },
      { amountType: 'metered_unit', meterId: tokensMeterId, unitAmount: '0.5' },
      { amountType: 'metered_unit', meterId: callsMeterId, unitAmount: 200, capAmount: 500 },
    ]);
    const credit = await seller.polar.benefits.create({
      type: 'meter_credit',
      description: '100 tokens a month',
      properties: { units: 100, rollover: false, meterId: tokensMeterId },
    });
    await seller.polar.products.updateBenefits({
      id: usagePlan.id,
      productBenefitsUpdate: { benefits: [credit.id] },
    });
  });
  after(() => api.close());

  it('bills the static price for the next period: a pay-what-you-want price renews the amount chosen', async () => {
    const product = await plan([{ amountType: 'custom', minimumAmount: 500, presetAmount: 900 }]);
    const subscription = await subscribe(product.id, { amount: 2500 });
    const renewal = await bill(subscription.id, firstPeriod(subscription));
    assert.deepEqual(renewal, {
      items: [
        {
          label: product.name,
          amount: 2500,
          taxAmount: 0,
          productPriceId: product.prices[0]?.id,
          proration: false,
          seats: null,
        },
      ],
      subtotalAmount: 2500,
      discountAmount: 0,
      netAmount: 2500,
      taxAmount: 0,
      taxLines: [],
      totalAmount: 2500,
      creditToBalance: 0,
    });
  });

  it('bills the closed period’s usage in arrears, less the period’s meter credits, capped', async () => {
    const subscription = await subscribe(usagePlan.id);
    await credited(subscription);
    await callApi(subscription);
    const closed = firstPeriod(subscription);
    const renewal = await bill(subscription.id, closed);
    const itemOf = (meterId: string | null) => {
      const price = usagePlan.prices.find((candidate) =>
        'meterId' in candidate ? candidate.meterId === meterId : meterId === null,
      );
      return renewal.items.find((item) => item.productPriceId === price?.id);
    };
    assert.equal(renewal.items.length, 3);
    assert.deepEqual(renewal.items[0], itemOf(null));
    assert.equal(itemOf(null)?.amount, 1000);
    // 1100.5 tokens, 100 of them credited: 1000.5 × 0.5¢ = 500.25¢.
    assert.equal(itemOf(tokensMeterId)?.amount, 500);
    assert.equal(itemOf(tokensMeterId)?.label, 'Tokens — (1000.5 consumed units) × $0.005');
    // 3 calls × $2 = $6, capped at $5.
    assert.equal(itemOf(callsMeterId)?.amount, 500);
    assert.match(itemOf(callsMeterId)?.label ?? '', /Capped at \$5\.00$/);
    assert.ok(renewal.items.every((item) => !item.proration));
    assert.equal(renewal.totalAmount, 2000);
    assertConsistent(renewal);

    // Usage arriving after the period was billed is not billed again by a retried renewal.
    await callApi(subscription);
    assert.deepEqual(await bill(subscription.id, closed), renewal);
  });

  it('applies a repeating discount to the periods its months cover: 3 months, 3 periods', async () => {
    const product = await plan([{ amountType: 'fixed', priceAmount: 1000 }]);
    const discount = await seller.polar.discounts.create({
      name: `Quarter off ${tag()}`,
      type: 'percentage',
      basisPoints: 2500,
      duration: 'repeating',
      durationInMonths: 3,
    });
    const subscription = await subscribe(product.id, { discountId: discount.id });
    const started = subscription.currentPeriodStart;
    const discounts: number[] = [];
    for (const month of [1, 2, 3]) {
      const closed = { start: addMonths(started, month - 1), end: addMonths(started, month) };
      const renewal = await bill(subscription.id, closed);
      assertConsistent(renewal);
      discounts.push(renewal.discountAmount);
    }
    // The checkout's order was the first month; the renewals bill the second, third and fourth.
    assert.deepEqual(discounts, [250, 250, 0]);
  });

  it('bills pending prorations beside the price: a debit adds, a credit takes off', async () => {
    const product = await plan([{ amountType: 'fixed', priceAmount: 1500 }]);
    const subscription = await subscribe(product.id);
    await setPendingItems(subscription.id, [
      { label: 'Remaining time on Pro', amount: 1200, productPriceId: null },
      { label: 'Unused time on Basic', amount: -400, productPriceId: null },
    ]);
    const renewal = await bill(subscription.id, firstPeriod(subscription));
    assert.deepEqual(
      renewal.items.map(({ label, amount, proration }) => [label, amount, proration]),
      [
        [product.name, 1500, false],
        ['Remaining time on Pro', 1200, true],
        ['Unused time on Basic', -400, true],
      ],
    );
    assert.equal(renewal.totalAmount, 2300);
    assert.equal(renewal.creditToBalance, 0);
    assertConsistent(renewal);
  });

  it('bills nothing when credits exceed the price, and leaves the rest to the customer balance', async () => {
    const product = await plan([{ amountType: 'fixed', priceAmount: 1500 }]);
    const subscription = await subscribe(product.id);
    await setPendingItems(subscription.id, [
      { label: 'Unused time on Max', amount: -2000, productPriceId: null },
    ]);
    const renewal = await bill(subscription.id, firstPeriod(subscription));
    assert.deepEqual(
      renewal.items.map(({ amount, proration }) => [amount, proration]),
      [
        [1500, false],
        [-2000, true],
        [500, true],
      ],
    );
    assert.equal(renewal.subtotalAmount, 0);
    assert.equal(renewal.totalAmount, 0);
    assert.equal(renewal.creditToBalance, 500);
    assertConsistent(renewal);
  });

  it('answers the current period’s usage of each metered price as the subscription’s meters', async () => {
    const subscription = await subscribe(usagePlan.id);
    await credited(subscription);
    await callApi(subscription);
    const read = await seller.polar.subscriptions.get({ id: subscription.id });
    const byMeter = read.meters.toSorted((a, b) => a.meter.name.localeCompare(b.meter.name));
    assert.deepEqual(
      byMeter.map(({ meterId, consumedUnits, creditedUnits, amount, meter }) => ({
        meterId,
        consumedUnits,
        creditedUnits,
        amount,
        meterName: meter.name,
      })),
      [
        {
          meterId: callsMeterId,
          consumedUnits: 3,
          creditedUnits: 0,
          amount: 500,
          meterName: 'Calls',
        },
        {
          meterId: tokensMeterId,
          consumedUnits: 1100.5,
          creditedUnits: 100,
          amount: 500,
          meterName: 'Tokens',
        },
      ],
    );
    const listed = await seller.polar.subscriptions.list({ customerId: subscription.customer.id });
    assert.deepEqual(listed.result.items[0]?.meters, read.meters);
    await assert.rejects(other.polar.subscriptions.get({ id: subscription.id }), ResourceNotFound);
  });

  describe('meter credits at renewal (benefit cycles)', () => {
    /** The customer's tokens meter after the subscription's benefits cycle into a new period. */
    async function cycled(rollover: boolean) {
      const credit = await seller.polar.benefits.create({
        type: 'meter_credit',
        description: `100 tokens ${tag()}`,
        properties: { units: 100, rollover, meterId: tokensMeterId },
      });
      const product = await plan([{ amountType: 'fixed', priceAmount: 1000 }]);
      await seller.polar.products.updateBenefits({
        id: product.id,
        productBenefitsUpdate: { benefits: [credit.id] },
      });
      const subscription = await subscribe(product.id);
      await credited(subscription);
      await callApi(subscription, [30.5]);
      const grants = createBenefitGrantActivities(
        { orm: api.orm, temporal: api.temporal },
        api.config.benefitIntegrations,
      );
      await grants.requestBenefitCycles({
        customerId: subscription.customer.id,
        subscriptionId: subscription.id,
        periodStart: firstPeriod(subscription).end.toISOString(),
      });
      const state = await eventually(
        () => seller.polar.customers.getState({ id: subscription.customer.id }),
        (candidate) => tokensMeterOf(candidate)?.consumedUnits === 0,
        { what: 'the meter reset for the new period' },
      );
      return tokensMeterOf(state);
    }

    const tokensMeterOf = (state: CustomerState) =>
      state.activeMeters.find((meter) => meter.meterId === tokensMeterId);

    it('starts a period from the benefit’s units when it does not roll over', async () => {
      // 30.5 of 100 tokens were used; the 69 whole units left are lost.
      const meter = await cycled(false);
      assert.equal(meter?.creditedUnits, 100);
      assert.equal(meter?.balance, 100);
    });

    it('adds the unused whole units to the benefit’s units when it rolls over', async () => {
      const meter = await cycled(true);
      assert.equal(meter?.creditedUnits, 169);
      assert.equal(meter?.balance, 169);
    });
  });
});

describe('what a metered price charges (meteredCharge)', () => {
  const price = (unitAmount: string, capAmount: number | null = null) => ({
    unitAmount,
    capAmount,
    priceCurrency: 'usd',
    meter: { name: 'Tokens' },
  });

  it('rounds exact products half up to a minor unit, however small the unit amount', () => {
    assert.equal(meteredCharge(price('0.5'), '3', 0).amount, 2);
    assert.equal(meteredCharge(price('0.5'), '2.999999', 0).amount, 1);
    assert.equal(meteredCharge(price('0.000000000125'), '4000000000', 0).amount, 1);
  });

  it('bills nothing for usage the credits cover, and never more than the cap', () => {
    const covered = meteredCharge(price('10'), '99.5', 100);
    assert.deepEqual(covered, { amount: 0, label: 'Tokens — (0 consumed units) × $0.10' });
    assert.equal(meteredCharge(price('10', 250), '1000', 0).amount, 250);
  });
});
