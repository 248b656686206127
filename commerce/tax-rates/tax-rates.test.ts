import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import type { AddressInput } from '@polar-sh/sdk/models/components/addressinput.js';
import type { z } from 'zod';
import { buyerClient, ordersOfCheckout, settledCheckout, testCards } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import type { taxLineWireSchema } from './schemas.ts';

/**
 * docs/tax.md's worked example, end to end: a seller established in Germany with its own rates
 * sells a $49.00 product; each buyer's checkout shows the tax once the billing address is known,
 * and the order carries it, to the cent, with its tax lines in the seller's and the buyer's answers.
 */
describe('seller-defined tax rates (/v1/tax-rates) at checkout', () => {
  let api: TestApi;
  let seller: Seller;
  let buyer: Polar;
  let productId: string;

  const v1 = (method: string, path: string, body?: unknown) =>
    callV1(api, seller.token, method, path, body);

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    buyer = buyerClient(api);
    const settings = await v1('PATCH', `/v1/organizations/${seller.organizationId}`, {
      tax_settings: { mode: 'seller_rates', home_country: 'de' },
    });
    assert.equal(settings.status, 200);
    assert.deepEqual(settings.body.tax_settings, {
      mode: 'seller_rates',
      home_country: 'DE',
      prices_include_tax: false,
    });
    for (const rate of [
      { country: 'DE', rate_bps: 1900, display_name: 'VAT DE' },
      { country: 'FR', rate_bps: 2000, display_name: 'VAT FR' },
      { country: 'US', subdivision: 'US-CA', rate_bps: 725, display_name: 'Sales tax CA' },
      { country: 'NL', rate_bps: 2100, display_name: 'VAT NL', inclusive: true },
    ]) {
      const created = await v1('POST', '/v1/tax-rates', rate);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    productId = (
      await seller.polar.products.create({
        name: 'Handbook',
        prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
      })
    ).id;
  });

  after(() => api?.close());

  it('keeps one rate per place, checks subdivisions, and lists, updates and deletes rates', async () => {
    const again = await v1('POST', '/v1/tax-rates', {
      country: 'de',
      rate_bps: 700,
      display_name: 'Reduced',
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'TaxRateAlreadyExists');
    const badPlace = await v1('POST', '/v1/tax-rates', {
      country: 'DE',
      subdivision: 'BY',
      rate_bps: 700,
      display_name: 'Bavaria',
    });
    assert.equal(badPlace.status, 422);
    assert.deepEqual(
      badPlace.body.detail.map((issue: { loc: string[] }) => issue.loc),
      [['body', 'subdivision']],
    );
    const tooHigh = await v1('POST', '/v1/tax-rates', {
      country: 'IT',
      rate_bps: 10_001,
      display_name: 'VAT IT',
    });
    assert.equal(tooHigh.status, 422);

    const quebec = await v1('POST', '/v1/tax-rates', {
      country: 'CA',
      subdivision: 'qc',
      rate_bps: 998,
      display_name: 'QST',
    });
    assert.equal(quebec.status, 201);
    assert.equal(quebec.body.subdivision, 'QC');
    assert.equal(quebec.body.inclusive, false, "the organization's prices_include_tax");
    const listed = await v1('GET', '/v1/tax-rates?country=CA');
    assert.deepEqual(
      listed.body.items.map((rate: { display_name: string }) => rate.display_name),
      ['QST'],
    );
    const updated = await v1('PATCH', `/v1/tax-rates/${quebec.body.id}`, { rate_bps: 997 });
    assert.equal(updated.body.rate_bps, 997);
    assert.equal((await v1('DELETE', `/v1/tax-rates/${quebec.body.id}`)).status, 204);
    assert.equal((await v1('GET', `/v1/tax-rates/${quebec.body.id}`)).status, 404);

    const stripeTax = await v1('PATCH', `/v1/organizations/${seller.organizationId}`, {
      tax_settings: { mode: 'stripe_tax' },
    });
    assert.equal(stripeTax.status, 200);
    assert.equal(stripeTax.body.tax_settings.mode, 'stripe_tax');
    const back = await v1('PATCH', `/v1/organizations/${seller.organizationId}`, {
      tax_settings: { mode: 'seller_rates' },
    });
    assert.equal(back.body.tax_settings.mode, 'seller_rates');

    const stranger = await createSeller(api);
    const theirs = await callV1(api, stranger.token, 'GET', '/v1/tax-rates');
    assert.equal(theirs.body.items.length, 0);
  });

  it('taxes nothing of an exempt product, yet knows its tax once the country is known', async () => {
    const exempt = await v1('POST', '/v1/products', {
      name: 'Donation receipt',
      prices: [{ amount_type: 'fixed', price_amount: 4900, price_currency: 'usd' }],
      tax_behavior: 'exempt',
    });
    assert.equal(exempt.body.tax_behavior, 'exempt');
    const created = await seller.polar.checkouts.create({ products: [exempt.body.id] });
    const updated = await buyer.checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: { country: 'DE' } },
    });
    assert.deepEqual([updated.taxAmount, updated.totalAmount], [0, 4900]);
  });

  const buyers: {
    who: string;
    address: AddressInput;
    taxId?: string;
    tax: number;
    total: number;
    lines: z.input<typeof taxLineWireSchema>[];
  }[] = [
    {
      who: 'a German consumer: 19 % on top',
      address: { country: 'DE', city: 'Berlin', line1: 'Unter den Linden 1' },
      tax: 931,
      total: 5831,
      lines: [
        {
          jurisdiction: 'DE',
          display_name: 'VAT DE',
          rate_bps: 1900,
          taxable_amount: 4900,
          tax_amount: 931,
          inclusive: false,
          reverse_charge: false,
        },
      ],
    },
    {
      who: 'a French business with a VAT id: reverse charge',
      // A business gives its full address.
      address: {
        country: 'FR',
        state: 'Île-de-France',
        city: 'Paris',
        postalCode: '75001',
        line1: '1 rue de Rivoli',
      },
      taxId: 'FR61954506077',
      tax: 0,
      total: 4900,
      lines: [
        {
          jurisdiction: 'FR',
          display_name: 'Reverse charge',
          rate_bps: 0,
          taxable_amount: 4900,
          tax_amount: 0,
          inclusive: false,
          reverse_charge: true,
        },
      ],
    },
    {
      who: 'a Californian: 7.25 %, 355.25 rounded to 355',
      address: {
        country: 'US',
        state: 'CA',
        city: 'San Francisco',
        postalCode: '94103',
        line1: '1 Market St',
      },
      tax: 355,
      total: 5255,
      lines: [
        {
          jurisdiction: 'US-CA',
          display_name: 'Sales tax CA',
          rate_bps: 725,
          taxable_amount: 4900,
          tax_amount: 355,
          inclusive: false,
          reverse_charge: false,
        },
      ],
    },
    {
      who: 'a Dutch consumer, price inclusive of 21 %: the total stays $49.00',
      address: { country: 'NL', city: 'Amsterdam', line1: 'Dam 1' },
      tax: 850,
      total: 4900,
      lines: [
        {
          jurisdiction: 'NL',
          display_name: 'VAT NL',
          rate_bps: 2100,
          taxable_amount: 4050,
          tax_amount: 850,
          inclusive: true,
          reverse_charge: false,
        },
      ],
    },
  ];

  for (const example of buyers) {
    it(`docs/tax.md: ${example.who}`, async () => {
      const created = await seller.polar.checkouts.create({ products: [productId] });
      assert.equal(created.taxAmount, null, 'no tax before the billing country is known');
      assert.equal(created.totalAmount, 4900);

      const updated = await buyer.checkouts.clientUpdate({
        clientSecret: created.clientSecret,
        checkoutUpdatePublic: {
          customerBillingAddress: example.address,
          ...(example.taxId && { customerTaxId: example.taxId, isBusinessCustomer: true }),
        },
      });
      assert.deepEqual(
        [updated.netAmount, updated.taxAmount, updated.totalAmount],
        [4900, example.tax, example.total],
      );

      await buyer.checkouts.clientConfirm({
        clientSecret: created.clientSecret,
        checkoutConfirmStripe: {
          customerEmail: `tax-${created.id}@example.com`,
          customerName: 'Ada Buyer',
          customerBillingAddress: example.address,
          confirmationTokenId: testCards.visa,
        },
      });
      const settled = await settledCheckout(seller, created.id);
      assert.equal(settled.status, 'succeeded');
      const [order] = await ordersOfCheckout(seller, created.id);
      assert.ok(order);
      assert.deepEqual(
        [order.netAmount, order.taxAmount, order.totalAmount, order.items[0]?.taxAmount],
        [4900, example.tax, example.total, example.tax],
      );
      // The SDK drops Tollgate's `tax_lines` once it has checked them against the document: the
      // wire itself says what they are, to the seller and in the buyer's portal.
      await seller.polar.orders.get({ id: order.id });
      const sellerOrder = await v1('GET', `/v1/orders/${order.id}`);
      assert.deepEqual(sellerOrder.body.tax_lines, example.lines);
      const { token } = await seller.polar.customerSessions.create({
        customerId: order.customerId,
      });
      await seller.polar.customerPortal.orders.get({ customerSession: token }, { id: order.id });
      const portalOrder = await callV1(api, token, 'GET', `/v1/customer-portal/orders/${order.id}`);
      assert.deepEqual(portalOrder.body.tax_lines, example.lines);
    });
  }
});
