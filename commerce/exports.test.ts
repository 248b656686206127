import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { csvCell } from './http/csv.ts';
import { buy, buyerDetails } from './orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from './testing.ts';

const csvHeaders = {
  subscriptions: 'Email,Created At,Active,Product,Price,Currency,Interval\r\n',
  orders:
    'Invoice Number,Date,Customer Email,Billing Name,Country,Tax ID,Currency,Subtotal,Discount,' +
    'Net,Tax,Total,Refunded,Refunded Tax,Status,Tax Lines\r\n',
};

describe('CSV exports (/v1/subscriptions/export, /v1/orders/export)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let planOrder: Order;
  let ebookOrder: Order;
  let otherOrder: Order;
  let subscriber: string;

  /** The export at `path` with `seller`'s token: status, content type and text. */
  async function download(path: string, caller: Seller = seller) {
    const response = await fetch(`${api.url}${path}`, {
      headers: { authorization: `Bearer ${caller.token}` },
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      disposition: response.headers.get('content-disposition'),
      text: await response.text(),
    };
  }

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    // A name a spreadsheet would run as a formula, with a quote and a comma to escape.
    const plan = await seller.polar.products.create({
      name: '=HYPERLINK("https://evil.example","Pro, monthly")',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1250 }],
    });
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const fiveOff = await seller.polar.discounts.create({
      name: 'Five off',
      type: 'fixed',
      amount: 500,
      currency: 'usd',
      duration: 'once',
    });
    // The other seller taxes its French buyers at 20 %: its order carries a tax line.
    const taxed = await callV1(
      api,
      other.token,
      'PATCH',
      `/v1/organizations/${other.organizationId}`,
      {
        tax_settings: { mode: 'seller_rates', home_country: 'DE' },
      },
    );
    assert.equal(taxed.status, 200, JSON.stringify(taxed.body));
    const rate = await callV1(api, other.token, 'POST', '/v1/tax-rates', {
      country: 'FR',
      rate_bps: 2000,
      display_name: 'VAT FR',
    });
    assert.equal(rate.status, 201, JSON.stringify(rate.body));
    const otherProduct = await other.polar.products.create({
      name: 'Other plan',
      recurringInterval: 'year',
      prices: [{ amountType: 'fixed', priceAmount: 9900 }],
    });
    const planDetails = buyerDetails();
    subscriber = planDetails.customerEmail as string;
    const bought = [
      await buy(api, seller, plan.id, planDetails),
      await buy(
        api,
        seller,
        ebook.id,
        { ...buyerDetails(), customerBillingName: '@SUM(1,2)' },
        { discountId: fiveOff.id },
      ),
      await buy(api, other, otherProduct.id),
    ].map(({ order }) => order);
    assert.ok(bought.every((order) => order !== undefined));
    [planOrder, ebookOrder, otherOrder] = bought as [Order, Order, Order];
  });
  after(() => api.close());

  it("answers Polar's subscriptions CSV: its columns, the organization's rows, a formula made text", async () => {
    const [subscription] = (await seller.polar.subscriptions.list({})).result.items;
    assert.ok(subscription);
    const answer = await download('/v1/subscriptions/export');
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'text/csv; charset=utf-8');
    assert.equal(answer.disposition, 'attachment; filename="subscriptions.csv"');
    assert.equal(
      answer.text,
      csvHeaders.subscriptions +
        `${subscriber},${subscription.createdAt.toISOString()},true,` +
        `"'=HYPERLINK(""https://evil.example"",""Pro, monthly"")",12.50,usd,month\r\n`,
    );
  });

  it("answers another organization's token its own subscriptions only, and none for a foreign filter", async () => {
    const own = await download('/v1/subscriptions/export', other);
    assert.equal(own.text.split('\r\n').length, 3, own.text);
    assert.match(own.text, /,Other plan,99\.00,usd,year\r\n$/);
    assert.ok(!own.text.includes(subscriber) && !own.text.includes('HYPERLINK'), own.text);
    const filtered = await download(
      `/v1/subscriptions/export?organization_id=${seller.organizationId}`,
      other,
    );
    assert.equal(filtered.text, csvHeaders.subscriptions);
  });

  it('answers the orders for accounting: one row per order, amounts as exact decimals', async () => {
    const answer = await download('/v1/orders/export');
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'text/csv; charset=utf-8');
    assert.equal(answer.disposition, 'attachment; filename="orders.csv"');
    const row = (order: Order) =>
      `${order.invoiceNumber},${order.createdAt.toISOString()},${order.customer.email}`;
    assert.equal(
      answer.text,
      csvHeaders.orders +
        `${row(planOrder)},Ada Buyer,FR,,usd,12.50,0.00,12.50,0.00,12.50,0.00,0.00,paid,\r\n` +
        `${row(ebookOrder)},"'@SUM(1,2)",FR,,usd,19.00,5.00,14.00,0.00,14.00,0.00,0.00,paid,\r\n`,
    );
    const foreign = await download('/v1/orders/export', other);
    assert.equal(
      foreign.text,
      `${csvHeaders.orders}${row(otherOrder)},Ada Buyer,FR,,usd,` +
        '99.00,0.00,99.00,19.80,118.80,0.00,0.00,paid,VAT FR (FR) 20%: 19.80\r\n',
    );
  });

  it('keeps the orders made in the range of UTC days asked for, both days included', async () => {
    const today = planOrder.createdAt.toISOString().slice(0, 10);
    const within = await download(`/v1/orders/export?start_date=${today}&end_date=${today}`);
    assert.equal(within.text.split('\r\n').length, 4, within.text);
    const earlier = await download('/v1/orders/export?start_date=2020-01-01&end_date=2020-12-31');
    assert.equal(earlier.text, csvHeaders.orders);
    const later = await download('/v1/orders/export?start_date=2999-01-01');
    assert.equal(later.text, csvHeaders.orders);
  });

  it('refuses dates that are not days, and a reversed range, with 422 at the parameter', async () => {
    for (const [query, field] of [
      ['start_date=2025-13-01', 'start_date'],
      ['end_date=yesterday', 'end_date'],
      ['start_date=2025-03-02&end_date=2025-03-01', 'end_date'],
    ]) {
      const answer = await download(`/v1/orders/export?${query}`);
      assert.equal(answer.status, 422, query);
      const { detail } = JSON.parse(answer.text) as { detail: { loc: string[] }[] };
      assert.deepEqual(detail[0]?.loc, ['query', field], query);
    }
  });
});

describe('csvCell', () => {
  it('quotes what needs quoting and makes formulas text', () => {
    const cases: [string, string][] = [
      ['plain', 'plain'],
      ['', ''],
      ['a,b', '"a,b"'],
      ['say "hi"', '"say ""hi"""'],
      ['two\nlines', '"two\nlines"'],
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@cmd', "'@cmd"],
      ['\t=1', "'\t=1"],
      ['=A1,"x"', `"'=A1,""x"""`],
      ['a=b', 'a=b'],
    ];
    for (const [value, cell] of cases) assert.equal(csvCell(value), cell, JSON.stringify(value));
  });
});
