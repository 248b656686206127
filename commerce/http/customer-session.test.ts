import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { eventually } from '../../devstack/eventually.ts';
import { buy } from '../orders/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/**
 * The portal's reads are kept per customer in each API process (customer-session.ts): these
 * check that what a customer reads is never older than what changed, however it changed.
 */
describe('customer portal answers kept by the API', () => {
  let api: TestApi;
  let seller: Seller;
  let ebookId: string;

  async function buyer() {
    const { order } = await buy(api, seller, ebookId);
    assert.ok(order, 'the checkout made an order');
    const { token } = await seller.polar.customerSessions.create({ customerId: order.customerId });
    return { order, token, as: { customerSession: token } };
  }

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    ebookId = (
      await seller.polar.products.create({
        name: 'Field guide',
        prices: [{ amountType: 'fixed', priceAmount: 1500 }],
      })
    ).id;
  });
  after(() => api.close());

  const portal = () => seller.polar.customerPortal;

  it('answers each customer with its own things only, at the same address', async () => {
    const [first, second] = await Promise.all([buyer(), buyer()]);
    for (const { order, as } of [first, second, first, second]) {
      const page = await portal().orders.list(as, {});
      assert.deepEqual(
        page.result.items.map((item) => item.id),
        [order.id],
      );
    }
  });

  it('shows a change that no request announced (a write straight to the table)', async () => {
    const { order, as } = await buyer();
    assert.equal((await portal().orders.get(as, { id: order.id })).billingName, 'Ada Buyer');
    // As a worker, a migration or an operator's SQL would: the database itself announces it.
    await api.orm.em
      .fork()
      .getConnection()
      .execute(`update orders set billing_name = 'Ada Buyer GmbH' where id = ?`, [order.id]);
    const seen = await eventually(
      () => portal().orders.get(as, { id: order.id }),
      (answer) => answer.billingName === 'Ada Buyer GmbH',
      { timeoutMs: 5000, what: 'the order as changed in the table' },
    );
    assert.equal(seen.id, order.id);
  });

  it('shows the customer’s own write in its very next read', async () => {
    const { as } = await buyer();
    assert.equal((await portal().customers.get(as)).billingName, 'Ada Buyer');
    await portal().customers.update(as, { billingName: 'Ada Buyer SARL' });
    assert.equal((await portal().customers.get(as)).billingName, 'Ada Buyer SARL');
  });

  it('shows the seller’s catalog change in the next read', async () => {
    const product = await seller.polar.products.create({
      name: 'Atlas',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { order } = await buy(api, seller, product.id);
    assert.ok(order);
    const { token } = await seller.polar.customerSessions.create({ customerId: order.customerId });
    const as = { customerSession: token };
    assert.equal((await portal().orders.get(as, { id: order.id })).product?.name, 'Atlas');
    await seller.polar.products.update({
      id: product.id,
      productUpdate: { name: 'Atlas, 2nd ed.' },
    });
    assert.equal((await portal().orders.get(as, { id: order.id })).product?.name, 'Atlas, 2nd ed.');
  });

  it('closes a deleted customer’s session at once', async () => {
    const { order, as } = await buyer();
    await portal().customers.get(as);
    await seller.polar.customers.delete({ id: order.customerId });
    await assert.rejects(portal().customers.get(as), (error: unknown) => {
      assert.ok(error instanceof SDKError);
      assert.equal(error.statusCode, 401);
      return true;
    });
  });
});
