import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authSettings } from '../../accounts/settings.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { invoiceLinkLifetimeMs, invoiceUrl } from './invoice.ts';
import { buy } from './testing.ts';

describe('invoice links', () => {
  let api: TestApi;
  let seller: Seller;
  let orderIds: [string, string];
  /** A link's path and query on the test API (links name the configured public URL). */
  const onTestApi = (url: string) => {
    const { pathname, search } = new URL(url);
    return `${api.url}${pathname}${search}`;
  };

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    const product = await seller.polar.products.create({
      name: 'Invoiced',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    const bought = await Promise.all([buy(api, seller, product.id), buy(api, seller, product.id)]);
    orderIds = bought.map(({ order }) => {
      assert.ok(order);
      return order.id;
    }) as [string, string];
    for (const id of orderIds) await seller.polar.orders.generateInvoice({ id });
  });
  after(() => api.close());

  it('opens the invoice from a fresh link', async () => {
    const { url } = await seller.polar.orders.invoice({ id: orderIds[0] });
    const response = await fetch(onTestApi(url));
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Invoice /);
  });

  it('refuses a link past its lifetime with 410, showing nothing of the invoice', async () => {
    const { secret } = authSettings(api.config);
    // A link handed out longer ago than its lifetime: forwarded mail, a shared screen, a log.
    const issuedAt = Date.now() - invoiceLinkLifetimeMs - 1000;
    const stale = invoiceUrl(api.config.api.publicUrl, secret, orderIds[0], issuedAt);
    const response = await fetch(onTestApi(stale));
    assert.equal(response.status, 410);
    const body = (await response.json()) as { error: string; detail: string };
    assert.equal(body.error, 'ExpiredInvoiceLink');
    assert.doesNotMatch(JSON.stringify(body), /Invoice [A-Z]/);
  });

  it("refuses one order's link on another order, a forged one and the old never-expiring form", async () => {
    const { url } = await seller.polar.orders.invoice({ id: orderIds[0] });
    const token = new URL(url).searchParams.get('token');
    const base = `${api.url}/v1/orders/${orderIds[1]}/invoice/document`;
    assert.equal((await fetch(`${base}?token=${token}`)).status, 404);
    const [payload] = (token ?? '').split('.');
    assert.equal((await fetch(`${base}?token=${payload}.forged`)).status, 404);
    const legacy = await callV1(
      api,
      null,
      'GET',
      `/v1/orders/${orderIds[1]}/invoice/document?signature=x`,
    );
    assert.equal(legacy.status, 422);
  });
});
