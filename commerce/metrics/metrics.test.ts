import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MetricPeriod } from '@polar-sh/sdk/models/components/metricperiod.js';
import type { MetricsResponse } from '@polar-sh/sdk/models/components/metricsresponse.js';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { RFCDate } from '@polar-sh/sdk/types/rfcdate.js';
import {
  buy,
  buyerClient,
  buyerDetails,
  ordersOfCheckout,
  settledCheckout,
} from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { metricDefinitions } from './schemas.ts';

const day = (date: Date) => date.toISOString().slice(0, 10);
const daysAfter = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);

/** The value of `metric` in each period, as the SDK read it. */
const series = (response: MetricsResponse, metric: Exclude<keyof MetricPeriod, 'timestamp'>) =>
  response.periods.map((period) => period[metric]);

describe('metrics (/v1/metrics)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let ebookId: string;
  let ebookOrder: Order;
  let planOrder: Order;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const plan = await seller.polar.products.create({
      name: 'Yearly plan',
      recurringInterval: 'year',
      prices: [{ amountType: 'fixed', priceAmount: 12_006 }],
    });
    ebookId = ebook.id;
    const [bookBought, planBought] = await Promise.all([
      buy(api, seller, ebook.id),
      buy(api, seller, plan.id),
    ]);
    assert.ok(bookBought.order && planBought.order);
    [ebookOrder, planOrder] = [bookBought.order, planBought.order];
  });
  after(() => api.close());

  /** Three days around the purchases, a period a day, in UTC. */
  const aroundPurchases = (polar = seller.polar, filters = {}) =>
    polar.metrics.get({
      startDate: new RFCDate(day(daysAfter(ebookOrder.createdAt, -1))),
      endDate: new RFCDate(day(daysAfter(ebookOrder.createdAt, 1))),
      interval: 'day',
      timezone: 'UTC',
      ...filters,
    });

  it('counts a purchase and a new subscription in the day they were paid', async () => {
    const metrics = await aroundPurchases();
    const days = [-1, 0, 1].map((offset) => day(daysAfter(ebookOrder.createdAt, offset)));
    assert.deepEqual(
      metrics.periods.map((period) => period.timestamp.toISOString()),
      days.map((date) => `${date}T00:00:00.000Z`),
    );
    const onPurchaseDay = (date: Date, value: number) =>
      days.map((each) => (each === day(date) ? value : 0));
    const bookDay = onPurchaseDay(ebookOrder.createdAt, 1);
    const planDay = onPurchaseDay(planOrder.createdAt, 1);
    assert.deepEqual(
      series(metrics, 'orders'),
      bookDay.map((count, index) => count + (planDay[index] ?? 0)),
    );
    assert.deepEqual(
      series(metrics, 'oneTimeProductsRevenue'),
      onPurchaseDay(ebookOrder.createdAt, 1900),
    );
    assert.deepEqual(series(metrics, 'newSubscriptions'), onPurchaseDay(planOrder.createdAt, 1));
    assert.deepEqual(
      series(metrics, 'newSubscriptionsRevenue'),
      onPurchaseDay(planOrder.createdAt, 12_006),
    );
    assert.equal(metrics.totals.revenue, 1900 + 12_006);
    assert.equal(metrics.totals.cumulativeRevenue, 1900 + 12_006);
    assert.equal(metrics.totals.orders, 2);
    assert.equal(metrics.totals.averageOrderValue, Math.round((1900 + 12_006) / 2));
    assert.equal(metrics.totals.succeededCheckouts, 2);
    assert.equal(metrics.totals.checkoutsConversion, 1);
  });

  it('counts a subscription active from its start, its yearly amount as MRR rounded once', async () => {
    const metrics = await aroundPurchases();
    const started = day(planOrder.createdAt);
    assert.deepEqual(
      series(metrics, 'activeSubscriptions'),
      metrics.periods.map((period) => (day(period.timestamp) >= started ? 1 : 0)),
    );
    // 12 006 / 12 = 1000.5 cents a month, rounded half up.
    assert.equal(metrics.totals.activeSubscriptions, 1);
    assert.equal(metrics.totals.monthlyRecurringRevenue, 1001);
    assert.equal(metrics.totals.committedMonthlyRecurringRevenue, 1001);
  });

  it('counts a cancellation by its reason and takes it out of committed MRR', async () => {
    const subscriber = await createSeller(api);
    const plan = await subscriber.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { order } = await buy(api, subscriber, plan.id);
    assert.ok(order?.subscriptionId);
    await subscriber.polar.subscriptions.update({
      id: order.subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: 'too_expensive' },
    });
    const metrics = await aroundPurchases(subscriber.polar);
    assert.equal(metrics.totals.canceledSubscriptions, 1);
    assert.equal(metrics.totals.canceledSubscriptionsTooExpensive, 1);
    assert.equal(metrics.totals.canceledSubscriptionsOther, 0);
    // Still live until its period ends, but no longer committed.
    assert.equal(metrics.totals.activeSubscriptions, 1);
    assert.equal(metrics.totals.monthlyRecurringRevenue, 900);
    assert.equal(metrics.totals.committedMonthlyRecurringRevenue, 0);
  });

  /** The raw answer (with Tollgate's `currency` and `currencies`) for yesterday to tomorrow. */
  const rawAroundToday = (buyer: Seller, query = '') => {
    const today = new Date();
    return callV1(
      api,
      buyer.token,
      'GET',
      `/v1/metrics/?start_date=${day(daysAfter(today, -1))}&end_date=${day(daysAfter(today, 1))}&interval=day${query}`,
    );
  };

  /** A monthly plan of `prices` the seller sells, and its subscription bought by a new buyer. */
  async function subscribeToMonthly(
    buyer: Seller,
    prices: Parameters<Seller['polar']['products']['create']>[0]['prices'],
    checkout: Record<string, unknown> = {},
  ) {
    const plan = await buyer.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices,
    });
    const created = await callV1(api, buyer.token, 'POST', '/v1/checkouts/', {
      products: [plan.id],
      ...checkout,
    });
    assert.equal(created.status, 201);
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: created.body.client_secret,
      checkoutConfirmStripe: buyerDetails(),
    });
    await settledCheckout(buyer, created.body.id, ['succeeded']);
    const [order] = await ordersOfCheckout(buyer, created.body.id);
    assert.ok(order?.subscriptionId);
    return order;
  }

  it('never adds amounts of two currencies up: Polar fields carry one, `currencies` each', async () => {
    const merchant = await createSeller(api);
    const book = await merchant.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const [{ order: bookOrder }, planOrder] = await Promise.all([
      buy(api, merchant, book.id),
      subscribeToMonthly(merchant, [{ amountType: 'fixed', priceAmount: 900 }]),
    ]);
    assert.ok(bookOrder);
    // Prices are USD only for now: the plan's order and subscription are made EUR in place.
    const em = api.orm.em.fork();
    await em.execute(`update orders set currency = 'eur' where id = ?`, [planOrder.id]);
    await em.execute(`update subscriptions set currency = 'eur' where id = ?`, [
      planOrder.subscriptionId,
    ]);

    const { status, body } = await rawAroundToday(merchant);
    assert.equal(status, 200);
    assert.equal(body.currency, 'usd');
    assert.equal(body.totals.orders, 2);
    assert.equal(body.totals.active_subscriptions, 1);
    assert.equal(body.totals.revenue, 1900);
    assert.equal(body.totals.cumulative_revenue, 1900);
    assert.equal(body.totals.average_order_value, 1900);
    assert.equal(body.totals.monthly_recurring_revenue, 0);
    const totalsOf = (currency: string) =>
      body.currencies.find((each: { currency: string }) => each.currency === currency)?.totals;
    assert.deepEqual(
      body.currencies.map((each: { currency: string }) => each.currency),
      ['eur', 'usd'],
    );
    assert.equal(totalsOf('eur').revenue, 900);
    assert.equal(totalsOf('eur').new_subscriptions_revenue, 900);
    assert.equal(totalsOf('eur').monthly_recurring_revenue, 900);
    assert.equal(totalsOf('eur').average_order_value, 900);
    assert.equal(totalsOf('usd').revenue, 1900);
    assert.equal(totalsOf('usd').one_time_products_revenue, 1900);
    assert.equal(totalsOf('usd').monthly_recurring_revenue, 0);
    assert.equal(totalsOf('usd').orders, undefined, 'counts are not per currency');
    assert.equal(body.currencies[0].periods.length, 3);

    const euros = await rawAroundToday(merchant, '&currency=EUR');
    assert.equal(euros.body.currency, 'eur');
    assert.equal(euros.body.totals.revenue, 900);
    assert.equal(euros.body.totals.monthly_recurring_revenue, 900);
    assert.equal(euros.body.totals.orders, 2);
    // Polar's SDK reads the same answer, its extension keys aside.
    const sdk = await merchant.polar.metrics.get({
      startDate: new RFCDate(day(daysAfter(new Date(), -1))),
      endDate: new RFCDate(day(daysAfter(new Date(), 1))),
      interval: 'day',
    });
    assert.equal(sdk.totals.revenue, 1900);
  });

  it('counts MRR after a 20 % forever discount, rounded once', async () => {
    const buyer = await createSeller(api);
    const discount = await buyer.polar.discounts.create({
      name: 'Fifth off',
      type: 'percentage',
      basisPoints: 2000,
      duration: 'forever',
    });
    await subscribeToMonthly(buyer, [{ amountType: 'fixed', priceAmount: 999 }], {
      discount_id: discount.id,
    });
    const { body } = await rawAroundToday(buyer);
    // 999 less 20 % (199.8, rounded to 200) is 799 a month.
    assert.equal(body.totals.monthly_recurring_revenue, 799);
    assert.equal(body.totals.committed_monthly_recurring_revenue, 799);
  });

  it('stops lowering MRR when a repeating discount ends', async () => {
    const buyer = await createSeller(api);
    const discount = await buyer.polar.discounts.create({
      name: 'Half off the first month',
      type: 'percentage',
      basisPoints: 5000,
      duration: 'repeating',
      durationInMonths: 1,
    });
    const order = await subscribeToMonthly(buyer, [{ amountType: 'fixed', priceAmount: 1000 }], {
      discount_id: discount.id,
    });
    // Started on January 10 at noon: the discount covers the first month, until February 10.
    const started = new Date('2026-01-10T12:00:00Z');
    await api.orm.em
      .fork()
      .execute(
        'update subscriptions set started_at = ?, billing_anchor = ?, current_period_start = ? where id = ?',
        [started, started, started, order.subscriptionId],
      );
    const metrics = await buyer.polar.metrics.get({
      startDate: new RFCDate('2026-02-08'),
      endDate: new RFCDate('2026-02-12'),
      interval: 'day',
      timezone: 'UTC',
    });
    assert.deepEqual(series(metrics, 'monthlyRecurringRevenue'), [500, 500, 1000, 1000, 1000]);
    assert.deepEqual(
      series(metrics, 'committedMonthlyRecurringRevenue'),
      [500, 500, 1000, 1000, 1000],
    );
    assert.deepEqual(series(metrics, 'activeSubscriptions'), [1, 1, 1, 1, 1]);
  });

  it('counts a seat-based price times its seats, and no metered usage', async () => {
    const buyer = await createSeller(api);
    await buyer.polar.organizations.update({
      id: buyer.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const meter = await buyer.polar.meters.create({
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    await subscribeToMonthly(buyer, [{ amountType: 'seat_based', pricePerSeat: 700 }], {
      seats: 3,
    });
    const metered = await subscribeToMonthly(buyer, [
      { amountType: 'fixed', priceAmount: 900 },
      { amountType: 'metered_unit', meterId: meter.id, unitAmount: '50' },
    ]);
    await buyer.polar.events.ingest({
      events: [1, 2, 3].map(() => ({ name: 'api_call', customerId: metered.customerId })),
    });
    const { body } = await rawAroundToday(buyer);
    // 3 seats × 700, and the static 900 of the metered plan: its 3 calls × 50 are not counted.
    assert.equal(body.totals.active_subscriptions, 2);
    assert.equal(body.totals.monthly_recurring_revenue, 3 * 700 + 900);
    assert.match(
      body.metrics.monthly_recurring_revenue.description,
      /Metered usage is not included/,
    );
  });

  it('follows a change of seats: MRR is what the subscription bills for its seats now', async () => {
    const buyer = await createSeller(api);
    await buyer.polar.organizations.update({
      id: buyer.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const order = await subscribeToMonthly(
      buyer,
      [{ amountType: 'seat_based', pricePerSeat: 700 }],
      {
        seats: 3,
      },
    );
    /** The MRR as the SDK reads it (Polar's field), and the USD one of `currencies` (Tollgate's). */
    const mrr = async () => {
      const today = new Date();
      const sdk = await buyer.polar.metrics.get({
        startDate: new RFCDate(day(daysAfter(today, -1))),
        endDate: new RFCDate(day(daysAfter(today, 1))),
        interval: 'day',
      });
      const { body } = await rawAroundToday(buyer);
      const usd = body.currencies.find((each: { currency: string }) => each.currency === 'usd');
      return {
        mrr: sdk.totals.monthlyRecurringRevenue,
        committed: sdk.totals.committedMonthlyRecurringRevenue,
        usd: usd?.totals.monthly_recurring_revenue,
      };
    };
    assert.deepEqual(await mrr(), { mrr: 2100, committed: 2100, usd: 2100 });

    // The SDK (0.35.x) lacks the seats update: sent raw, its difference left to the renewal.
    const seats = (count: number) =>
      callV1(api, buyer.token, 'PATCH', `/v1/subscriptions/${order.subscriptionId}`, {
        seats: count,
        proration_behavior: 'prorate',
      });
    assert.equal((await seats(5)).status, 200);
    assert.deepEqual(await mrr(), { mrr: 5 * 700, committed: 5 * 700, usd: 5 * 700 });
    assert.equal((await seats(2)).status, 200);
    assert.deepEqual(await mrr(), { mrr: 2 * 700, committed: 2 * 700, usd: 2 * 700 });
  });

  it('answers every metric in every period, in the totals and as a descriptor', async () => {
    const response = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/metrics/?start_date=2026-01-01&end_date=2026-03-31&interval=month`,
    );
    assert.equal(response.status, 200);
    const slugs = metricDefinitions.map(({ slug }) => slug);
    assert.equal(slugs.length, 31);
    assert.equal(response.body.periods.length, 3);
    for (const period of response.body.periods) {
      assert.deepEqual(Object.keys(period).sort(), ['timestamp', ...slugs].sort());
    }
    assert.deepEqual(Object.keys(response.body.totals).sort(), [...slugs].sort());
    assert.deepEqual(Object.keys(response.body.metrics).sort(), [...slugs].sort());
    assert.deepEqual(response.body.metrics.revenue, {
      slug: 'revenue',
      display_name: 'Revenue',
      type: 'currency',
    });
  });

  it('filters by product, billing type and customer', async () => {
    const ebookOnly = await aroundPurchases(seller.polar, { productId: ebookId });
    assert.equal(ebookOnly.totals.orders, 1);
    assert.equal(ebookOnly.totals.activeSubscriptions, 0);
    const recurring = await aroundPurchases(seller.polar, { billingType: 'recurring' });
    assert.equal(recurring.totals.orders, 1);
    assert.equal(recurring.totals.revenue, 12_006);
    assert.equal(recurring.totals.activeSubscriptions, 1);
    const planBuyer = await aroundPurchases(seller.polar, { customerId: planOrder.customerId });
    assert.equal(planBuyer.totals.orders, 1);
    assert.equal(planBuyer.totals.newSubscriptions, 1);
  });

  it('buckets an order by the day of the requested time zone', async () => {
    const buyer = await createSeller(api);
    const book = await buyer.polar.products.create({
      name: 'Late-night ebook',
      prices: [{ amountType: 'fixed', priceAmount: 500 }],
    });
    const { order } = await buy(api, buyer, book.id);
    // 23:30 in UTC is already the next day in Paris (UTC+1 in March).
    await api.orm.em
      .fork()
      .execute('update orders set created_at = ? where id = ?', [
        new Date('2026-03-10T23:30:00Z'),
        order?.id,
      ]);
    const twoDays = (timezone: string) =>
      buyer.polar.metrics.get({
        startDate: new RFCDate('2026-03-10'),
        endDate: new RFCDate('2026-03-11'),
        interval: 'day',
        timezone,
      });
    const [utc, paris] = await Promise.all([twoDays('UTC'), twoDays('Europe/Paris')]);
    assert.deepEqual(series(utc, 'orders'), [1, 0]);
    assert.deepEqual(series(paris, 'orders'), [0, 1]);
    assert.deepEqual(
      paris.periods.map((period) => period.timestamp.toISOString()),
      ['2026-03-09T23:00:00.000Z', '2026-03-10T23:00:00.000Z'],
    );
    assert.deepEqual(series(paris, 'cumulativeRevenue'), [0, 500]);
  });

  it("shows another organization's data to nobody else", async () => {
    const metrics = await aroundPurchases(other.polar);
    for (const [slug, value] of Object.entries(metrics.totals)) assert.equal(value, 0, slug);
    const named = await aroundPurchases(seller.polar, { organizationId: other.organizationId });
    assert.equal(named.totals.orders, 0);
  });

  it('refuses reversed, too long or too early ranges and unknown time zones', async () => {
    const refused = async (query: string, where: string) => {
      const response = await callV1(api, seller.token, 'GET', `/v1/metrics/?${query}`);
      assert.equal(response.status, 422, query);
      assert.deepEqual(response.body.detail[0].loc, ['query', where], query);
    };
    await refused('start_date=2026-03-02&end_date=2026-03-01&interval=day', 'end_date');
    await refused('start_date=2026-01-01&end_date=2026-01-09&interval=hour', 'end_date');
    await refused('start_date=2022-12-31&end_date=2023-01-01&interval=day', 'start_date');
    await refused(
      'start_date=2026-01-01&end_date=2026-01-02&interval=day&timezone=Mars/Base',
      'timezone',
    );
    await refused('start_date=2026-01-01&end_date=2026-01-02&interval=minute', 'interval');
    await refused('start_date=2026-02-30&end_date=2026-03-01&interval=day', 'start_date');
    await assert.rejects(
      seller.polar.metrics.get({
        startDate: new RFCDate('2025-01-01'),
        endDate: new RFCDate('2026-03-01'),
        interval: 'day',
      }),
      HTTPValidationError,
    );
  });

  it('answers the limits of each interval', async () => {
    const limits = await seller.polar.metrics.limits();
    assert.equal(limits.minDate.toString(), '2023-01-01');
    assert.equal(limits.intervals.hour.maxDays, 7);
    assert.equal(limits.intervals.day.maxDays, 366);
  });

  it('requires the metrics:read scope', async () => {
    const limited = await createSeller(api, { scopes: ['orders:read'] });
    const response = await callV1(api, limited.token, 'GET', '/v1/metrics/limits');
    assert.equal(response.status, 403);
  });
});
