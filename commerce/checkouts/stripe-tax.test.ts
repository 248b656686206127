import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import type { AddressInput } from '@polar-sh/sdk/models/components/addressinput.js';
import { Checkout, Order } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import {
  type StripeSimulatorControl,
  stripeSimulatorControl,
} from '../../devstack/stripe-simulator.ts';
import type { TaxLine } from '../../domain/tax.ts';
import { buyerClient, ordersOfCheckout, settledCheckout, testCards } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/**
 * Stripe Tax (issue 22, option 1; docs/tax.md): the checkout's tax is Stripe's calculation (the
 * Stripe simulator answers it from its own table: 19 % in Germany), the paid order records the
 * calculation's transaction once, and a refund reverses its share.
 */
describe('Stripe Tax at checkout', () => {
  let api: TestApi;
  let seller: Seller;
  let buyer: Polar;
  let simulator: StripeSimulatorControl;
  let productId: string;

  const germany: AddressInput = { country: 'DE', city: 'Berlin', line1: 'Unter den Linden 1' };
  const germanVat: TaxLine = {
    jurisdiction: 'DE',
    displayName: 'VAT DE',
    rateBps: 1900,
    taxableAmount: 4900,
    taxAmount: 931,
    inclusive: false,
    reverseCharge: false,
  };

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    buyer = buyerClient(api);
    simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    const settings = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/organizations/${seller.organizationId}`,
      {
        tax_settings: { mode: 'stripe_tax', home_country: 'DE' },
      },
    );
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    assert.equal(settings.body.tax_settings.mode, 'stripe_tax');
    productId = (
      await seller.polar.products.create({
        name: 'Handbook',
        prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
      })
    ).id;
  });

  after(() => api?.close());

  it('taxes the checkout by Stripe, records the order tax once and reverses a refund pro rata', async () => {
    const created = await seller.polar.checkouts.create({ products: [productId] });
    assert.equal(created.taxAmount, null, 'no tax before the billing country is known');
    const updated = await buyer.checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: germany },
    });
    assert.deepEqual(
      [updated.netAmount, updated.taxAmount, updated.totalAmount],
      [4900, 931, 5831],
    );
    const priced = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.match(priced.stripeTaxCalculationId ?? '', /^taxcalc_/);
    assert.deepEqual(priced.taxLines, [germanVat]);

    await buyer.checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: {
        customerEmail: `stripe-tax-${created.id}@example.com`,
        customerName: 'Ada Buyer',
        customerBillingAddress: germany,
        confirmationTokenId: testCards.visa,
      },
    });
    assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
    const [order] = await ordersOfCheckout(seller, created.id);
    assert.ok(order);
    assert.deepEqual([order.taxAmount, order.totalAmount], [931, 5831]);
    const stored = await eventually(
      () => api.orm.em.fork().findOneOrFail(Order, order.id),
      (found) => found.stripeTaxTransactionId !== null,
      { what: `order ${order.id}'s Stripe Tax transaction` },
    );
    assert.deepEqual(stored.taxLines, [germanVat]);
    const recorded = (await simulator.taxTransactions()).filter(
      (each) => each.reference === order.id,
    );
    assert.deepEqual(
      recorded.map((each) => [each.id, each.type]),
      [[stored.stripeTaxTransactionId, 'transaction']],
      'one transaction, named by the order',
    );

    // Half the net amount back: 931 × 2450 / 4900 = 465.5 of tax, rounded to 466.
    const refund = await seller.polar.refunds.create({
      orderId: order.id,
      amount: 2450,
      reason: 'customer_request',
    });
    assert.ok(refund);
    assert.equal(refund.taxAmount, 466);
    const reversals = await eventually(
      async () =>
        (await simulator.taxTransactions()).filter((each) => each.reference === refund.id),
      (found) => found.length > 0,
      { what: `refund ${refund.id}'s tax reversal` },
    );
    assert.deepEqual(
      reversals.map((each) => [each.type, each.flat_amount]),
      [['reversal', -(2450 + 466)]],
    );
  });

  it("reads Stripe's breakdown for a Californian and a French business with a VAT id", async () => {
    const taxedFor = async (
      update: Parameters<Polar['checkouts']['clientUpdate']>[0]['checkoutUpdatePublic'],
    ) => {
      const created = await seller.polar.checkouts.create({ products: [productId] });
      const updated = await buyer.checkouts.clientUpdate({
        clientSecret: created.clientSecret,
        checkoutUpdatePublic: update,
      });
      const stored = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
      return { total: updated.totalAmount, lines: stored.taxLines };
    };
    // 7.25 % of 4900 is 355.25: Stripe's rounding, 355.
    const californian = await taxedFor({
      customerBillingAddress: {
        country: 'US',
        state: 'CA',
        postalCode: '94103',
        line1: '1 Market St',
        city: 'San Francisco',
      },
    });
    assert.deepEqual(californian, {
      total: 5255,
      lines: [
        {
          jurisdiction: 'US-CA',
          displayName: 'SALES TAX US-CA',
          rateBps: 725,
          taxableAmount: 4900,
          taxAmount: 355,
          inclusive: false,
          reverseCharge: false,
        },
      ],
    });
    // A German seller's sale to a French business: Stripe is told it is a reverse charge.
    const business = await taxedFor({
      customerBillingAddress: {
        country: 'FR',
        postalCode: '75001',
        line1: '1 rue de Rivoli',
        city: 'Paris',
      },
      customerTaxId: 'FR61954506077',
      isBusinessCustomer: true,
    });
    assert.deepEqual(business, {
      total: 4900,
      lines: [
        {
          jurisdiction: 'FR',
          displayName: 'Reverse charge',
          rateBps: 0,
          taxableAmount: 4900,
          taxAmount: 0,
          inclusive: false,
          reverseCharge: true,
        },
      ],
    });
  });

  it("asks Stripe with the checkout unlocked: a seller's change meanwhile is answered first and taxed", async () => {
    const discount = await seller.polar.discounts.create({
      name: 'Tenth off',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'once',
    });
    const created = await seller.polar.checkouts.create({ products: [productId] });
    // Stripe Tax takes two seconds to answer the buyer's address.
    await simulator.injectFault({
      path: '/v1/tax/calculations',
      method: 'POST',
      bodyIncludes: created.id,
      mode: 'slow',
      delayMs: 2000,
      count: 1,
    });
    const answered: string[] = [];
    const buyerUpdate = buyer.checkouts
      .clientUpdate({
        clientSecret: created.clientSecret,
        checkoutUpdatePublic: { customerBillingAddress: germany },
      })
      .finally(() => answered.push('buyer'));
    await eventually(
      () => simulator.pendingFaults(),
      (pending) => !pending.some((fault) => fault.bodyIncludes === created.id),
      { what: "Stripe Tax's slow answer to start" },
    );
    // The checkout's row is free while Stripe answers, and the seller's change goes through.
    await api.orm.em
      .fork()
      .execute('select id from checkouts where id = ? for update nowait', [created.id]);
    const sellerUpdate = await seller.polar.checkouts.update({
      id: created.id,
      checkoutUpdate: { discountId: discount.id },
    });
    answered.push('seller');
    assert.equal(sellerUpdate.netAmount, 4410);

    // The buyer's change, made on the discounted checkout, is taxed on its new net amount.
    const updated = await buyerUpdate;
    assert.deepEqual(answered, ['seller', 'buyer']);
    // 19 % of 4410 is 837.9: 838.
    assert.deepEqual(
      [updated.netAmount, updated.taxAmount, updated.totalAmount],
      [4410, 838, 5248],
    );
    const stored = await api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.equal(stored.taxLines?.[0]?.taxableAmount, 4410);
  });

  it('refuses a billing address Stripe cannot tax, leaving the tax unknown rather than wrong', async () => {
    const created = await seller.polar.checkouts.create({ products: [productId] });
    // More failures than the SDK's retries: Stripe Tax is down for this checkout's calculation.
    await simulator.injectFault({
      path: '/v1/tax/calculations',
      method: 'POST',
      bodyIncludes: created.id,
      mode: 'error',
      count: 3,
    });
    const refused = await callV1(api, '', 'PATCH', `/v1/checkouts/client/${created.clientSecret}`, {
      customer_billing_address: germany,
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'customer_billing_address']);
    assert.match(refused.body.detail[0].msg, /tax for this address could not be calculated/);
    const unchanged = await seller.polar.checkouts.get({ id: created.id });
    assert.deepEqual([unchanged.taxAmount, unchanged.totalAmount], [null, 4900]);
    assert.equal(unchanged.customerBillingAddress, null);

    // Stripe answers again: the same change is taxed.
    const taxed = await buyer.checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: germany },
    });
    assert.deepEqual([taxed.taxAmount, taxed.totalAmount], [931, 5831]);
  });
});
