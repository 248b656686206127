import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { InvoiceAlreadyExists } from '@polar-sh/sdk/models/errors/invoicealreadyexists.js';
import { MissingInvoiceBillingDetails } from '@polar-sh/sdk/models/errors/missinginvoicebillingdetails.js';
import { NotPaidOrder } from '@polar-sh/sdk/models/errors/notpaidorder.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { Order as OrderRow, Organization, OutboxEvent } from '../../db/entities/index.ts';
import { completeCheckout } from '../checkouts/outcomes.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { buy } from './testing.ts';

describe('orders (/v1/orders)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let slug: string;
  let ebookId: string;
  let ebookOrder: Order;
  let planOrder: Order;
  let freeOrder: Order;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    slug = (await api.orm.em.fork().findOneOrFail(Organization, seller.organizationId)).slug;
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const sticker = await seller.polar.products.create({
      name: 'Sticker',
      prices: [{ amountType: 'free' }],
    });
    ebookId = ebook.id;
    const bought = await Promise.all([
      buy(api, seller, ebook.id),
      buy(api, seller, plan.id),
      buy(api, seller, sticker.id, { customerEmail: `free-${randomUUID()}@example.com` }),
    ]);
    const orders = bought.map(({ order }) => order);
    assert.ok(orders.every((order) => order !== undefined));
    [ebookOrder, planOrder, freeOrder] = orders as [Order, Order, Order];
  });
  after(() => api.close());

  it('answers a paid purchase with its amounts, item, buyer and invoice number', async () => {
    const order = await seller.polar.orders.get({ id: ebookOrder.id });
    assert.equal(order.status, 'paid');
    assert.equal(order.paid, true);
    assert.equal(order.billingReason, 'purchase');
    assert.deepEqual(
      [order.subtotalAmount, order.discountAmount, order.netAmount, order.taxAmount],
      [1900, 0, 1900, 0],
    );
    assert.equal(order.totalAmount, 1900);
    assert.equal(order.currency, 'usd');
    assert.deepEqual(
      order.items.map((item) => [item.label, item.amount]),
      [['Ebook', 1900]],
    );
    assert.equal(order.billingName, 'Ada Buyer');
    assert.equal(order.billingAddress?.country, 'FR');
    assert.equal(order.product.id, ebookId);
    assert.equal(order.userId, order.customerId);
    assert.equal(order.customer.id, order.customerId);
    assert.equal(order.subscription, null);
    assert.match(order.invoiceNumber, new RegExp(`^${slug.toUpperCase()}-000[1-3]$`));
    assert.equal(order.isInvoiceGenerated, false);
  });

  it('numbers the invoices of an organization one after another', async () => {
    const numbers = [ebookOrder, planOrder, freeOrder].map((order) => order.invoiceNumber).sort();
    assert.deepEqual(
      numbers,
      [1, 2, 3].map((n) => `${slug.toUpperCase()}-000${n}`),
    );
  });

  it('completes a checkout once: running the completion again answers the same order', async () => {
    const organization = () => api.orm.em.fork().findOneOrFail(Organization, seller.organizationId);
    const invoicesBefore = (await organization()).lastInvoiceNumber;
    const again = await Promise.all(
      [1, 2].map(() =>
        completeCheckout(
          api.orm.em.fork(),
          ebookOrder.checkoutId ?? '',
          null,
          api.config.api.publicUrl,
        ),
      ),
    );
    assert.deepEqual(
      again.map((done) => done.orderId),
      [ebookOrder.id, ebookOrder.id],
    );
    assert.equal((await organization()).lastInvoiceNumber, invoicesBefore);
    const page = await seller.polar.orders.list({ checkoutId: ebookOrder.checkoutId });
    assert.equal(page.result.pagination.totalCount, 1);
  });

  it('makes the first order of a subscription with its subscription', async () => {
    const order = await seller.polar.orders.get({ id: planOrder.id });
    assert.equal(order.billingReason, 'subscription_create');
    assert.equal(order.totalAmount, 900);
    assert.equal(order.subscription?.status, 'active');
    assert.equal(order.subscription?.recurringInterval, 'month');
    assert.equal(order.subscriptionId, order.subscription?.id);
    const state = await seller.polar.customers.getState({ id: order.customerId });
    assert.deepEqual(
      state.activeSubscriptions.map((subscription) => [
        subscription.id,
        subscription.status,
        subscription.amount,
        subscription.productId,
      ]),
      [[order.subscriptionId, 'active', 900, order.productId]],
    );
    const [subscription] = state.activeSubscriptions;
    const periodDays =
      ((subscription?.currentPeriodEnd?.getTime() ?? 0) -
        (subscription?.currentPeriodStart.getTime() ?? 0)) /
      86_400_000;
    assert.ok(periodDays >= 28 && periodDays <= 31, `a month: ${periodDays} days`);
    const events = await api.orm.em
      .fork()
      .find(OutboxEvent, { data: { id: order.subscriptionId } }, { orderBy: { createdAt: 'asc' } });
    assert.deepEqual(
      events.map((event) => event.type),
      ['subscription.created', 'subscription.active'],
    );
  });

  it('lists with filters and sorting', async () => {
    const ids = async (request: Parameters<Seller['polar']['orders']['list']>[0]) =>
      (await seller.polar.orders.list(request)).result.items.map((order) => order.id);
    assert.deepEqual(await ids({ productId: ebookId }), [ebookOrder.id]);
    assert.deepEqual(await ids({ customerId: planOrder.customerId }), [planOrder.id]);
    assert.deepEqual(await ids({ checkoutId: freeOrder.checkoutId }), [freeOrder.id]);
    assert.deepEqual(await ids({ productBillingType: 'recurring' }), [planOrder.id]);
    assert.deepEqual(
      (await ids({ productBillingType: 'one_time' })).sort(),
      [ebookOrder.id, freeOrder.id].sort(),
    );
    assert.deepEqual(await ids({ discountId: randomUUID() }), []);
    assert.deepEqual(await ids({ sorting: ['-amount'] }), [
      ebookOrder.id,
      planOrder.id,
      freeOrder.id,
    ]);
    const page = await seller.polar.orders.list({ limit: 2 });
    assert.equal(page.result.pagination.totalCount, 3);
    assert.equal(page.result.pagination.maxPage, 2);
  });

  it('filters by metadata and refuses an unknown sorting', async () => {
    const em = api.orm.em.fork();
    await em.nativeUpdate(OrderRow, { id: ebookOrder.id }, { metadata: { channel: 'blog' } });
    const page = await seller.polar.orders.list({ metadata: { channel: 'blog' } });
    assert.deepEqual(
      page.result.items.map((order) => order.id),
      [ebookOrder.id],
    );
    const bad = await callV1(api, seller.token, 'GET', '/v1/orders/?sorting=price');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['query', 'sorting']);
  });

  it('updates the billing name and address; a bad address is a 422 at its field', async () => {
    const updated = await seller.polar.orders.update({
      id: planOrder.id,
      orderUpdate: {
        billingName: 'Ada Corp',
        billingAddress: {
          country: 'US',
          state: 'CA',
          line1: '1 Main St',
          city: 'SF',
          postalCode: '94105',
        },
      },
    });
    assert.equal(updated.billingName, 'Ada Corp');
    assert.equal(updated.billingAddress?.state, 'US-CA');
    assert.ok(updated.modifiedAt);
    const bad = await callV1(api, seller.token, 'PATCH', `/v1/orders/${planOrder.id}`, {
      billing_name: 'X',
      billing_address: { country: 'ZZ' },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['body', 'billing_address', 'country']);
    const missingKey = await callV1(api, seller.token, 'PATCH', `/v1/orders/${planOrder.id}`, {
      billing_name: 'Only a name',
    });
    assert.equal(missingKey.status, 422);
    assert.deepEqual(missingKey.body.detail[0].loc, ['body', 'billing_address']);
  });

  it('generates an invoice once, served at its signed URL', async () => {
    await assert.rejects(seller.polar.orders.invoice({ id: ebookOrder.id }), ResourceNotFound);
    await seller.polar.orders.generateInvoice({ id: ebookOrder.id });
    assert.equal((await seller.polar.orders.get({ id: ebookOrder.id })).isInvoiceGenerated, true);
    await assert.rejects(
      seller.polar.orders.generateInvoice({ id: ebookOrder.id }),
      InvoiceAlreadyExists,
    );
    const { url } = await seller.polar.orders.invoice({ id: ebookOrder.id });
    // The URL is on the configured public address; this test's API listens elsewhere.
    const { pathname, search } = new URL(url);
    const document = await fetch(`${api.url}${pathname}${search}`);
    assert.equal(document.status, 200);
    const html = await document.text();
    assert.match(html, new RegExp(ebookOrder.invoiceNumber));
    assert.match(html, /Ada Buyer/);
    const tampered = await fetch(`${api.url}${pathname}${search.replace(/token=./, 'token=x')}`);
    assert.equal(tampered.status, 404);
  });

  it('refuses an invoice without billing details, or for an unpaid order', async () => {
    await assert.rejects(
      seller.polar.orders.generateInvoice({ id: freeOrder.id }),
      MissingInvoiceBillingDetails,
    );
    const em = api.orm.em.fork();
    await em.nativeUpdate(OrderRow, { id: planOrder.id }, { status: 'pending' });
    try {
      await assert.rejects(seller.polar.orders.generateInvoice({ id: planOrder.id }), NotPaidOrder);
    } finally {
      await em.nativeUpdate(OrderRow, { id: planOrder.id }, { status: 'paid' });
    }
  });

  it("keeps organizations apart: another seller's orders are not found", async () => {
    const theirs = other.polar;
    await assert.rejects(theirs.orders.get({ id: ebookOrder.id }), ResourceNotFound);
    await assert.rejects(
      theirs.orders.update({
        id: ebookOrder.id,
        orderUpdate: { billingName: 'X', billingAddress: null },
      }),
      ResourceNotFound,
    );
    // The SDK declares no 404 for invoice generation: a generic SDKError with the status.
    await assert.rejects(
      theirs.orders.generateInvoice({ id: planOrder.id }),
      (error) => error instanceof SDKError && error.statusCode === 404,
    );
    await assert.rejects(theirs.orders.invoice({ id: ebookOrder.id }), ResourceNotFound);
    assert.equal((await theirs.orders.list({})).result.pagination.totalCount, 0);
    const filtered = await seller.polar.orders.list({ organizationId: other.organizationId });
    assert.equal(filtered.result.items.length, 0);
  });

  it('answers 422 for a malformed id and 401 without a token', async () => {
    const malformed = await callV1(api, seller.token, 'GET', '/v1/orders/not-a-uuid');
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['path', 'id']);
    const anonymous = await callV1(api, null, 'GET', '/v1/orders/');
    assert.equal(anonymous.status, 401);
  });
});
