import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { Order as OrderRow } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import {
  type StripeSimulatorControl,
  stripeSimulatorControl,
} from '../../devstack/stripe-simulator.ts';
import type { TaxLine } from '../../domain/tax.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { recordMissingTaxTransactions } from '../../integrations/stripe/tax-transactions.ts';
import { buyerClient, testCards } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { renewalOrderIdOf } from './lifecycle.ts';
import { advanceTestClock, subscribeOnTestClock } from './testing.ts';

// Every subscription here starts on its own test clock at this instant: its first period is
// January (31 days), and the plans cost multiples of 31 cents, so prorations come to the cent.
const newYear = '2027-01-01T00:00:00.000Z';
const february = '2027-02-01T00:00:00.000Z';
/** 10 of January's 31 days used: 21/31 of each amount is left. */
const januaryEleventh = '2027-01-11T00:00:00.000Z';

/** A customer's billing address, as /v1/customers takes it. */
interface BillingAddress {
  country: 'DE' | 'FR';
  city: string;
  line1: string;
  postal_code: string;
}
const berlin: BillingAddress = {
  country: 'DE',
  city: 'Berlin',
  line1: 'Unter den Linden 1',
  postal_code: '10117',
};
const paris: BillingAddress = {
  country: 'FR',
  city: 'Paris',
  line1: '1 rue de Rivoli',
  postal_code: '75001',
};

/** A tax line of the worked example: exclusive, not reverse charged unless said. */
const line = (
  jurisdiction: string,
  displayName: string,
  rateBps: number,
  taxableAmount: number,
  taxAmount: number,
  reverseCharge = false,
): TaxLine => ({
  jurisdiction,
  displayName,
  rateBps,
  taxableAmount,
  taxAmount,
  inclusive: false,
  reverseCharge,
});

/** A Stripe Tax transaction (or reversal) as the simulator keeps it. */
interface SimulatedTaxTransaction {
  id: string;
  type: string;
  reference: string;
  calculation?: string;
  amount_total?: number;
  flat_amount?: number;
}

/** What a seller's subscription tests share: a customer subscribing on a clock of its own. */
function subscriptionsOf(context: () => { api: TestApi; seller: Seller }) {
  /**
   * A new customer with a billing address (and a tax id) on a new clock frozen at `newYear`
   * subscribes to `productId`; answers the subscription, its customer and the clock.
   */
  async function subscribe(
    productId: string,
    billingAddress: BillingAddress,
    taxId?: [string, string],
  ) {
    const { api, seller } = context();
    const clock = await callV1(api, seller.token, 'POST', '/v1/test-clocks/', {
      frozen_time: newYear,
    });
    assert.equal(clock.status, 201, JSON.stringify(clock.body));
    const email = `renewal-tax-${clock.body.id}@example.com`;
    const customer = await callV1(api, seller.token, 'POST', '/v1/customers/', {
      email,
      name: 'Ada Buyer',
      billing_address: billingAddress,
      ...(taxId && { tax_id: taxId }),
      test_clock_id: clock.body.id,
    });
    assert.equal(customer.status, 201, JSON.stringify(customer.body));
    const checkout = await seller.polar.checkouts.create({
      products: [productId],
      customerId: customer.body.id,
    });
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: {
        customerEmail: email,
        customerName: 'Ada Buyer',
        customerBillingAddress: {
          country: billingAddress.country,
          city: billingAddress.city,
          line1: billingAddress.line1,
          postalCode: billingAddress.postal_code,
        },
        confirmationTokenId: testCards.visa,
      },
    });
    const settled = await eventually(
      () => seller.polar.checkouts.get({ id: checkout.id }),
      (found) => found.status === 'succeeded' && found.subscriptionId !== null,
      { what: `checkout ${checkout.id} succeeded` },
    );
    return {
      subscriptionId: settled.subscriptionId as string,
      customerId: customer.body.id as string,
      clockId: clock.body.id as string,
    };
  }

  const ordersOf = async (customerId: string, billingReason: string) =>
    (await context().seller.polar.orders.list({ customerId })).result.items.filter(
      (order) => order.billingReason === billingReason,
    );

  /** Moves the clock to February and answers the paid renewal order. */
  async function renewed(clockId: string, customerId: string): Promise<Order> {
    const { api, seller } = context();
    await advanceTestClock(api, seller, clockId, february);
    const [renewal] = await eventually(
      () => ordersOf(customerId, 'subscription_cycle'),
      (orders) => orders.length === 1 && orders[0]?.status === 'paid',
      { what: 'the paid renewal order', timeoutMs: 90_000 },
    );
    assert.ok(renewal);
    return renewal;
  }

  /** An order's lines as [label, amount, tax], in the order's order of lines by amount. */
  const linesOf = (order: Order) =>
    order.items
      .toSorted((a, b) => a.amount - b.amount)
      .map((item) => [item.label, item.amount, item.taxAmount] as const);

  const amountsOf = (order: Order) => [
    order.netAmount,
    order.taxAmount,
    order.totalAmount,
    order.status,
  ];

  const storedOrder = (id: string) => context().api.orm.em.fork().findOneOrFail(OrderRow, id);

  return { subscribe, ordersOf, renewed, linesOf, amountsOf, storedOrder };
}

/**
 * docs/tax.md's worked example for renewals and plan changes, end to end: a seller established
 * in Germany with its own rates (VAT DE 19 %, VAT FR 20 %) sells Team at $31.31 and Business at
 * $62.62 a month; renewals and plan changes are taxed for the customer as they stand, to the cent.
 */
describe('tax on renewals and plan changes, with the seller’s rates', () => {
  let api: TestApi;
  let seller: Seller;
  let teamId: string;
  let businessId: string;
  const { subscribe, ordersOf, renewed, linesOf, amountsOf, storedOrder } = subscriptionsOf(() => ({
    api,
    seller,
  }));

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    const v1 = (method: string, path: string, body?: unknown) =>
      callV1(api, seller.token, method, path, body);
    const settings = await v1('PATCH', `/v1/organizations/${seller.organizationId}`, {
      tax_settings: { mode: 'seller_rates', home_country: 'DE' },
    });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    for (const rate of [
      { country: 'DE', rate_bps: 1900, display_name: 'VAT DE' },
      { country: 'FR', rate_bps: 2000, display_name: 'VAT FR' },
    ]) {
      const created = await v1('POST', '/v1/tax-rates', rate);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const plan = (name: string, priceAmount: number) =>
      seller.polar.products.create({
        name,
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount, priceCurrency: 'usd' }],
      });
    teamId = (await plan('Team', 3131)).id;
    businessId = (await plan('Business', 6262)).id;
  });
  after(() => api?.close());

  it('docs/tax.md: a German consumer’s renewal carries 19 % VAT, on the invoice too', async () => {
    const { customerId, clockId } = await subscribe(teamId, berlin);
    const renewal = await renewed(clockId, customerId);
    // 19 % of 31.31 is 5.9489: 5.95.
    assert.deepEqual(amountsOf(renewal), [3131, 595, 3726, 'paid']);
    assert.deepEqual(linesOf(renewal), [['Team', 3131, 595]]);
    const stored = await storedOrder(renewal.id);
    assert.deepEqual(stored.taxLines, [line('DE', 'VAT DE', 1900, 3131, 595)]);
    const payments = await seller.polar.payments.list({ orderId: renewal.id });
    assert.deepEqual(
      payments.result.items.map((payment) => [payment.status, payment.amount]),
      [['succeeded', 3726]],
      'the card is charged the total, tax included',
    );

    await seller.polar.orders.generateInvoice({ id: renewal.id });
    const { url } = await seller.polar.orders.invoice({ id: renewal.id });
    const { pathname, search } = new URL(url);
    const page = await (await fetch(`${api.url}${pathname}${search}`)).text();
    assert.match(page, /<td>VAT DE \(DE\)<\/td><td>19%<\/td><td>\$31\.31<\/td><td>\$5\.95<\/td>/);
  });

  it('docs/tax.md: a French business with a VAT id renews under the reverse charge', async () => {
    const { customerId, clockId } = await subscribe(teamId, paris, ['FR61954506077', 'eu_vat']);
    const renewal = await renewed(clockId, customerId);
    assert.deepEqual(amountsOf(renewal), [3131, 0, 3131, 'paid']);
    const stored = await storedOrder(renewal.id);
    assert.deepEqual(stored.taxLines, [line('FR', 'Reverse charge', 0, 3131, 0, true)]);
  });

  it('bills and taxes the renewal of a named customer without an address where the checkout said', async () => {
    // The customer is created with an email only; the buyer gives a Paris address at checkout.
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, teamId, newYear);
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const renewal = await renewed(clockId, customerId);
    // 20 % of 31.31 is 6.262: 6.26.
    assert.deepEqual(amountsOf(renewal), [3131, 626, 3757, 'paid']);
    const stored = await storedOrder(renewal.id);
    assert.deepEqual(stored.taxLines, [line('FR', 'VAT FR', 2000, 3131, 626)]);
    assert.equal(stored.billingAddress?.country, 'FR');
  });

  it('docs/tax.md: an invoiced upgrade is charged now with its VAT; the renewal taxes the new plan', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(teamId, berlin);
    await advanceTestClock(api, seller, clockId, januaryEleventh);
    const changed = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/subscriptions/${subscriptionId}`,
      {
        product_id: businessId,
        proration_behavior: 'invoice',
      },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const [upgrade] = await ordersOf(customerId, 'subscription_update');
    assert.ok(upgrade, 'a subscription_update order');
    // 21.21 of difference; 19 % is 4.0299: 4.03, shared by the lines: −4.03 and the rest, 8.06.
    assert.deepEqual(amountsOf(upgrade), [2121, 403, 2524, 'paid']);
    assert.deepEqual(linesOf(upgrade), [
      ['Unused time on Team', -2121, -403],
      ['Remaining time on Business', 4242, 806],
    ]);
    assert.deepEqual((await storedOrder(upgrade.id)).taxLines, [
      line('DE', 'VAT DE', 1900, 2121, 403),
    ]);
    const payments = await seller.polar.payments.list({ orderId: upgrade.id });
    assert.deepEqual(
      payments.result.items.map((payment) => [payment.status, payment.amount]),
      [['succeeded', 2524]],
    );

    const renewal = await renewed(clockId, customerId);
    // 19 % of 62.62 is 11.8978: 11.90.
    assert.deepEqual(amountsOf(renewal), [6262, 1190, 7452, 'paid']);
  });

  it('docs/tax.md: a prorated upgrade is taxed by the next renewal, on its net amount', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(teamId, berlin);
    await advanceTestClock(api, seller, clockId, januaryEleventh);
    const changed = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/subscriptions/${subscriptionId}`,
      {
        product_id: businessId,
        proration_behavior: 'prorate',
      },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(await ordersOf(customerId, 'subscription_update'), []);

    const renewal = await renewed(clockId, customerId);
    // 62.62 − 21.21 + 42.42 = 83.83; 19 % is 15.9277: 15.93, shared pro rata by the lines.
    assert.deepEqual(amountsOf(renewal), [8383, 1593, 9976, 'paid']);
    assert.deepEqual(linesOf(renewal), [
      ['Unused time on Team', -2121, -403],
      ['Remaining time on Business', 4242, 806],
      ['Business', 6262, 1190],
    ]);
    assert.deepEqual((await storedOrder(renewal.id)).taxLines, [
      line('DE', 'VAT DE', 1900, 8383, 1593),
    ]);
  });
});

/**
 * Stripe Tax (docs/tax.md): a renewal asks Stripe for a calculation of its own (the simulator's
 * table: 19 % in Germany), records its transaction once paid, and a refund reverses its share;
 * an invoiced plan change does the same for its order.
 */
describe('tax on renewals and plan changes, with Stripe Tax', () => {
  let api: TestApi;
  let seller: Seller;
  let simulator: StripeSimulatorControl;
  let teamId: string;
  let businessId: string;
  const { subscribe, ordersOf, renewed, amountsOf, storedOrder } = subscriptionsOf(() => ({
    api,
    seller,
  }));

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    const settings = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/organizations/${seller.organizationId}`,
      { tax_settings: { mode: 'stripe_tax', home_country: 'DE' } },
    );
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const plan = (name: string, priceAmount: number) =>
      seller.polar.products.create({
        name,
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount, priceCurrency: 'usd' }],
      });
    teamId = (await plan('Team', 3131)).id;
    businessId = (await plan('Business', 6262)).id;
  });
  after(() => api?.close());

  /** The order's Stripe Tax transactions and reversals in the simulator, named by `reference`. */
  const transactionsOf = async (reference: string) =>
    ((await simulator.taxTransactions()) as SimulatedTaxTransaction[]).filter(
      (each) => each.reference === reference,
    );

  /** The order once its Stripe Tax transaction is recorded. */
  const withTransaction = (orderId: string) =>
    eventually(
      () => storedOrder(orderId),
      (found) => found.stripeTaxTransactionId !== null,
      { what: `order ${orderId}'s Stripe Tax transaction` },
    );

  it('calculates the renewal’s tax, records its transaction once paid, and reverses a refund', async () => {
    const { customerId, clockId } = await subscribe(teamId, berlin);
    const renewal = await renewed(clockId, customerId);
    assert.deepEqual(amountsOf(renewal), [3131, 595, 3726, 'paid']);
    const stored = await withTransaction(renewal.id);
    assert.match(stored.stripeTaxCalculationId ?? '', /^taxcalc_/);
    assert.deepEqual(stored.taxLines, [line('DE', 'VAT DE', 1900, 3131, 595)]);
    const recorded = await transactionsOf(renewal.id);
    assert.deepEqual(
      recorded.map((each) => [each.id, each.type, each.calculation, each.amount_total]),
      [[stored.stripeTaxTransactionId, 'transaction', stored.stripeTaxCalculationId, 3726]],
      'one transaction, from the renewal’s own calculation',
    );

    // 10.00 of the net back: 595 × 1000 / 3131 = 190.03 of tax, 190.
    const refund = await seller.polar.refunds.create({
      orderId: renewal.id,
      amount: 1000,
      reason: 'customer_request',
    });
    assert.ok(refund);
    assert.equal(refund.taxAmount, 190);
    const reversals = await eventually(
      () => transactionsOf(refund.id),
      (found) => found.length > 0,
      { what: `refund ${refund.id}'s tax reversal` },
    );
    assert.deepEqual(
      reversals.map((each) => [each.type, each.flat_amount]),
      [['reversal', -(1000 + 190)]],
    );
  });

  it('keeps a renewal paid when Stripe Tax cannot record its transaction, recorded later by the sweep', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(teamId, berlin);
    const renewalId = renewalOrderIdOf(subscriptionId, new Date(february));
    // More failures than the SDK's retries: Stripe Tax is down for this renewal's transaction.
    await simulator.injectFault({
      path: '/v1/tax/transactions/create_from_calculation',
      method: 'POST',
      bodyIncludes: renewalId,
      mode: 'error',
      count: 3,
    });
    const renewal = await renewed(clockId, customerId);
    assert.equal(renewal.id, renewalId);
    assert.deepEqual(amountsOf(renewal), [3131, 595, 3726, 'paid']);
    const subscription = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(subscription.status, 'active', 'paid, not declined');
    assert.equal((await storedOrder(renewalId)).stripeTaxTransactionId, null);

    // What the upkeep's reconciliation runs over its window's orders.
    const deps = { orm: api.orm, stripe: createStripeClient(api.config.stripe) };
    assert.equal(await recordMissingTaxTransactions(deps, { subscription: subscriptionId }), 1);
    const stored = await storedOrder(renewalId);
    assert.deepEqual(
      (await transactionsOf(renewalId)).map((each) => [each.id, each.calculation]),
      [[stored.stripeTaxTransactionId, stored.stripeTaxCalculationId]],
    );
    assert.equal(await recordMissingTaxTransactions(deps, { subscription: subscriptionId }), 0);
  });

  it('taxes an invoiced upgrade by Stripe and records its transaction', async () => {
    const { subscriptionId, customerId, clockId } = await subscribe(teamId, berlin);
    await advanceTestClock(api, seller, clockId, januaryEleventh);
    const changed = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/subscriptions/${subscriptionId}`,
      {
        product_id: businessId,
        proration_behavior: 'invoice',
      },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const [upgrade] = await ordersOf(customerId, 'subscription_update');
    assert.ok(upgrade, 'a subscription_update order');
    assert.deepEqual(amountsOf(upgrade), [2121, 403, 2524, 'paid']);
    const stored = await withTransaction(upgrade.id);
    assert.deepEqual(stored.taxLines, [line('DE', 'VAT DE', 1900, 2121, 403)]);
    assert.deepEqual(
      (await transactionsOf(upgrade.id)).map((each) => [each.type, each.calculation]),
      [['transaction', stored.stripeTaxCalculationId]],
    );
  });
});
