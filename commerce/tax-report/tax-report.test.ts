import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressInput } from '@polar-sh/sdk/models/components/addressinput.js';
import { eventually } from '../../devstack/eventually.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { taxedOrder } from './testing.ts';

const berlin: AddressInput = { country: 'DE', city: 'Berlin', line1: 'Unter den Linden 1' };
const sanFrancisco: AddressInput = {
  country: 'US',
  state: 'CA',
  city: 'San Francisco',
  postalCode: '94103',
  line1: '1 Market St',
};
const paris: AddressInput = {
  country: 'FR',
  state: 'Île-de-France',
  city: 'Paris',
  postalCode: '75001',
  line1: '1 rue de Rivoli',
};

/**
 * GET /v1/tax-report: a seller established in Germany (docs/tax.md's rates) sells a $49.00
 * product to two Germans, a Californian and a French business (reverse charge), and refunds half
 * of one German order; the report sums each jurisdiction's month to the cent.
 */
describe('the tax report (GET /v1/tax-report)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let period: string;

  /** A seller taxing with its own German and Californian rates, and its $49.00 product. */
  async function taxingSeller(): Promise<{ seller: Seller; productId: string }> {
    const created = await createSeller(api);
    const v1 = (method: string, path: string, body?: unknown) =>
      callV1(api, created.token, method, path, body);
    const settings = await v1('PATCH', `/v1/organizations/${created.organizationId}`, {
      tax_settings: { mode: 'seller_rates', home_country: 'DE' },
    });
    assert.equal(settings.status, 200);
    for (const rate of [
      { country: 'DE', rate_bps: 1900, display_name: 'VAT DE' },
      { country: 'US', subdivision: 'CA', rate_bps: 725, display_name: 'Sales tax CA' },
    ]) {
      assert.equal((await v1('POST', '/v1/tax-rates', rate)).status, 201);
    }
    const product = await created.polar.products.create({
      name: 'Handbook',
      prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
    });
    return { seller: created, productId: product.id };
  }

  const report = (who: Seller, query: string) =>
    callV1(api, who.token, 'GET', `/v1/tax-report?${query}`);

  before(async () => {
    api = await startCommerceApi();
    const sales = await taxingSeller();
    seller = sales.seller;
    const first = await taxedOrder(api, seller, sales.productId, berlin);
    const refunded = await taxedOrder(api, seller, sales.productId, berlin);
    await taxedOrder(api, seller, sales.productId, sanFrancisco);
    await taxedOrder(api, seller, sales.productId, paris, 'FR61954506077');
    period = first.createdAt.toISOString().slice(0, 7);

    // Half of the second German order back: 2450 and round(2450 × 931 / 4900) = 466 of tax.
    const refund = await seller.polar.refunds.create({
      orderId: refunded.id,
      amount: 2450,
      reason: 'customer_request',
    });
    assert.ok(refund);
    await eventually(
      async () => (await seller.polar.refunds.list({ id: refund.id })).result.items[0],
      (found) => found?.status === 'succeeded',
      { what: 'the refund settled' },
    );

    const rival = await taxingSeller();
    other = rival.seller;
    await taxedOrder(api, other, rival.productId, berlin);
  });

  after(() => api?.close());

  it('sums tax per jurisdiction and month, net of refunds, reverse charge on its own row', async () => {
    const answer = await report(seller, 'start_date=2020-01-01&end_date=2099-12-31');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.items, [
      {
        period,
        country: 'DE',
        subdivision: null,
        currency: 'usd',
        reverse_charge: false,
        // 4900 + 4900 − 2450 taxed; 931 + 931 − 466 collected.
        taxable_amount: 7350,
        tax_amount: 1396,
        order_count: 2,
      },
      {
        period,
        country: 'FR',
        subdivision: null,
        currency: 'usd',
        reverse_charge: true,
        taxable_amount: 4900,
        tax_amount: 0,
        order_count: 1,
      },
      {
        period,
        country: 'US',
        subdivision: 'CA',
        currency: 'usd',
        reverse_charge: false,
        taxable_amount: 4900,
        tax_amount: 355,
        order_count: 1,
      },
    ]);
  });

  it("answers each organization's own sales only, and one currency when asked", async () => {
    const rival = await report(other, 'start_date=2020-01-01&end_date=2099-12-31');
    assert.deepEqual(
      rival.body.items.map(
        (row: { country: string; tax_amount: number; order_count: number }) =>
          `${row.country} ${row.tax_amount} ${row.order_count}`,
      ),
      ['DE 931 1'],
    );
    const euros = await report(seller, 'start_date=2020-01-01&end_date=2099-12-31&currency=EUR');
    assert.deepEqual(euros.body.items, []);
    const before = await report(seller, 'start_date=2020-01-01&end_date=2020-12-31');
    assert.deepEqual(before.body.items, []);
  });

  it('answers the report as a CSV file', async () => {
    const response = await fetch(
      `${api.url}/v1/tax-report?start_date=2020-01-01&end_date=2099-12-31&format=csv`,
      { headers: { authorization: `Bearer ${seller.token}` } },
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(
      response.headers.get('content-disposition'),
      'attachment; filename="tax-report-2020-01-01-2099-12-31.csv"',
    );
    assert.equal(
      await response.text(),
      [
        'Period,Country,Subdivision,Currency,Reverse Charge,Taxable Amount,Tax Amount,Orders',
        `${period},DE,,usd,no,73.50,13.96,2`,
        `${period},FR,,usd,yes,49.00,0.00,1`,
        `${period},US,CA,usd,no,49.00,3.55,1`,
        '',
      ].join('\r\n'),
    );
  });

  it('refuses missing, malformed and reversed dates with 422', async () => {
    for (const [query, field] of [
      ['end_date=2026-12-31', 'start_date'],
      ['start_date=2026-13-01&end_date=2026-12-31', 'start_date'],
      ['start_date=2026-01-01&end_date=tomorrow', 'end_date'],
      ['start_date=2026-12-01&end_date=2026-11-30', 'end_date'],
      ['start_date=2026-01-01&end_date=2026-12-31&format=xlsx', 'format'],
    ] as const) {
      const answer = await report(seller, query);
      assert.equal(answer.status, 422, query);
      assert.deepEqual(
        answer.body.detail.map((issue: { loc: string[] }) => issue.loc),
        [['query', field]],
        query,
      );
    }
  });
});
