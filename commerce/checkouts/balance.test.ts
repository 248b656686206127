import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Customer } from '@polar-sh/sdk/models/components/customer.js';
import type { Refund } from '@polar-sh/sdk/models/components/refund.js';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { balanceToUse } from '../customers/balance.ts';
import {
  buyerClient,
  buyerDetails,
  ordersOfCheckout,
  settledCheckout,
  testCards,
} from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { confirmCheckout } from './confirm.ts';
import { failCheckoutPayment } from './outcomes.ts';

describe('checkouts spend the customer balance', () => {
  let api: TestApi;
  let seller: Seller;
  let toolId: string;
  let planId: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    const tool = await seller.polar.products.create({
      name: 'Tool',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    const plan = await seller.polar.products.create({
      name: 'Plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    toolId = tool.id;
    planId = plan.id;
  });
  after(() => api.close());

  /** A returning customer with `credit` on their balance (a seller adjustment). */
  async function customerWithCredit(credit: number): Promise<Customer> {
    const customer = await seller.polar.customers.create({ email: `${randomUUID()}@example.com` });
    const added = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/customers/${customer.id}/balance/adjustments`,
      { amount: credit, currency: 'usd', reason: 'Goodwill credit' },
    );
    assert.equal(added.status, 201, JSON.stringify(added.body));
    return customer;
  }

  /** A checkout the seller opens for `customerId` (a returning customer, named by id). */
  const checkoutFor = (customerId: string, productId = toolId) =>
    seller.polar.checkouts.create({ products: [productId], customerId });

  /** The buyer confirms on the hosted page: their name and address, and `card` if any. */
  const confirm = (clientSecret: string, card: string | null = testCards.visa) => {
    const { customerEmail: _, ...details } = buyerDetails(card);
    return buyerClient(api).checkouts.clientConfirm({
      clientSecret,
      checkoutConfirmStripe: details,
    });
  };

  /** The checkout as the page reads it, with Tollgate's balance fields the SDK leaves out. */
  async function pageOf(clientSecret: string) {
    const read = await callV1(api, null, 'GET', `/v1/checkouts/client/${clientSecret}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    return read.body as {
      status: string;
      total_amount: number;
      from_balance_amount: number;
      amount_due: number;
      is_payment_required: boolean;
      is_payment_form_required: boolean;
    };
  }

  const balanceOf = async (customerId: string) =>
    (await seller.polar.customers.getBalance({ id: customerId })).balance;

  async function entriesOf(customerId: string) {
    const listed = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/customers/${customerId}/balance/entries`,
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.items as { kind: string; amount: number; order_id: string | null }[];
  }

  /** The checkout settled, and its order. */
  async function paidOrderOf(checkoutId: string) {
    const checkout = await settledCheckout(seller, checkoutId);
    assert.equal(checkout.status, 'succeeded');
    const [order] = await ordersOfCheckout(seller, checkoutId);
    assert.ok(order, 'the checkout made an order');
    return order;
  }

  const chargesOf = async (checkoutId: string) =>
    (await seller.polar.payments.list({ checkoutId })).result.items.map((payment) => [
      payment.status,
      payment.amount,
    ]);

  it('a $10 credit pays part of a $29 purchase: the page says so, the card pays $19', async () => {
    const customer = await customerWithCredit(1000);
    const checkout = await checkoutFor(customer.id);
    const shown = await pageOf(checkout.clientSecret);
    assert.deepEqual(
      [shown.total_amount, shown.from_balance_amount, shown.amount_due, shown.is_payment_required],
      [2900, 1000, 1900, true],
    );

    await confirm(checkout.clientSecret);
    const order = await paidOrderOf(checkout.id);
    assert.deepEqual(
      [order.status, order.totalAmount, order.fromBalanceAmount],
      ['paid', 2900, 1000],
    );
    assert.deepEqual(await chargesOf(checkout.id), [['succeeded', 1900]]);
    assert.equal(await balanceOf(customer.id), 0);
    const [debit] = await entriesOf(customer.id);
    assert.deepEqual(
      [debit?.kind, debit?.amount, debit?.order_id],
      ['order_debit', -1000, order.id],
    );
    const paid = await pageOf(checkout.clientSecret);
    assert.deepEqual([paid.from_balance_amount, paid.amount_due], [1000, 1900]);

    await seller.polar.orders.generateInvoice({ id: order.id });
    const { url } = await seller.polar.orders.invoice({ id: order.id });
    const { pathname, search } = new URL(url);
    const invoice = await (await fetch(`${api.url}${pathname}${search}`)).text();
    assert.match(invoice, /Balance used[\s\S]*10\.00[\s\S]*Charged[\s\S]*\$19\.00/);
  });

  it('a credit that covers it all: no card asked, no PaymentIntent, the order paid', async () => {
    const customer = await customerWithCredit(5000);
    const checkout = await checkoutFor(customer.id);
    const shown = await pageOf(checkout.clientSecret);
    assert.deepEqual(
      [shown.amount_due, shown.is_payment_required, shown.is_payment_form_required],
      [0, false, false],
    );

    await confirm(checkout.clientSecret, null);
    const order = await paidOrderOf(checkout.id);
    assert.deepEqual([order.status, order.fromBalanceAmount], ['paid', 2900]);
    assert.deepEqual(await chargesOf(checkout.id), []);
    assert.equal(await balanceOf(customer.id), 2100);
  });

  it('a subscription the credit covers charges nothing and saves the card for the renewals', async () => {
    const customer = await customerWithCredit(2900);
    const checkout = await checkoutFor(customer.id, planId);
    const shown = await pageOf(checkout.clientSecret);
    assert.deepEqual(
      [shown.amount_due, shown.is_payment_required, shown.is_payment_form_required],
      [0, false, true],
    );

    await confirm(checkout.clientSecret);
    const order = await paidOrderOf(checkout.id);
    assert.deepEqual([order.billingReason, order.fromBalanceAmount], ['subscription_create', 2900]);
    assert.deepEqual(await chargesOf(checkout.id), []);
    assert.equal(await balanceOf(customer.id), 0);
    const subscription = await api.orm.em
      .fork()
      .findOneOrFail(Subscription, order.subscriptionId ?? '');
    assert.ok(subscription.stripePaymentMethodId, 'the card is kept for the renewals');
  });

  it('uses a little less credit so that the card pays at least Stripe’s $0.50', async () => {
    const customer = await customerWithCredit(2880);
    const checkout = await checkoutFor(customer.id);
    assert.equal((await pageOf(checkout.clientSecret)).from_balance_amount, 2850);
    await confirm(checkout.clientSecret);
    const order = await paidOrderOf(checkout.id);
    assert.equal(order.fromBalanceAmount, 2850);
    assert.deepEqual(await chargesOf(checkout.id), [['succeeded', 50]]);
    assert.equal(await balanceOf(customer.id), 30);
  });

  it('two checkouts confirmed at once never spend the same credit', async () => {
    const customer = await customerWithCredit(1000);
    const first = await checkoutFor(customer.id);
    const second = await checkoutFor(customer.id);
    await Promise.all([confirm(first.clientSecret), confirm(second.clientSecret)]);
    const orders = [await paidOrderOf(first.id), await paidOrderOf(second.id)];
    assert.deepEqual(
      orders.map((order) => order.fromBalanceAmount).sort((a, b) => a - b),
      [0, 1000],
      'one of them got the whole credit, the other none',
    );
    const charged = [...(await chargesOf(first.id)), ...(await chargesOf(second.id))];
    assert.deepEqual(
      charged.map(([, amount]) => amount).sort(),
      [1900, 2900],
      'each card paid what the balance did not',
    );
    assert.equal(await balanceOf(customer.id), 0);
  });

  it('a declined card gives the held credit back; the next confirm takes it again', async () => {
    const customer = await customerWithCredit(1000);
    const checkout = await checkoutFor(customer.id);
    await confirm(checkout.clientSecret, testCards.declined);
    const failed = await settledCheckout(seller, checkout.id, ['failed']);
    assert.equal(failed.status, 'failed');
    // Nothing held any more: another checkout of the customer could spend all of it.
    const other = await checkoutFor(customer.id);
    assert.equal((await pageOf(other.clientSecret)).from_balance_amount, 1000);
    assert.equal(await balanceOf(customer.id), 1000);

    await confirm(checkout.clientSecret);
    const order = await paidOrderOf(checkout.id);
    assert.equal(order.fromBalanceAmount, 1000);
    assert.deepEqual((await chargesOf(checkout.id)).sort(), [
      ['failed', 1900],
      ['succeeded', 1900],
    ]);
  });

  it('holds the credit from the confirm: other checkouts and renewals cannot spend it until the payment fails', async () => {
    const customer = await customerWithCredit(1000);
    const checkout = await checkoutFor(customer.id);
    // The confirm alone (as the workflow's first step), the payment not made yet.
    const body = {
      customer_name: 'Ada Buyer',
      customer_billing_address: { country: 'FR' },
      confirmation_token_id: testCards.visa,
    };
    const publicUrl = api.config.api.publicUrl;
    await confirmCheckout(api.orm.em.fork(), checkout.id, body, randomUUID(), publicUrl);
    assert.equal((await pageOf(checkout.clientSecret)).from_balance_amount, 1000);

    const other = await checkoutFor(customer.id);
    assert.equal((await pageOf(other.clientSecret)).from_balance_amount, 0);
    const renewalUses = () =>
      api.orm.em.fork().transactional((tx) => balanceToUse(tx, customer.id, 'usd', 2900));
    assert.equal(await renewalUses(), 0, 'a renewal finds the credit held');
    assert.equal(await balanceOf(customer.id), 1000, 'held, not spent');

    const declined = { code: 'card_declined', message: 'Your card was declined.' };
    await failCheckoutPayment(api.orm.em.fork(), checkout.id, declined, publicUrl);
    assert.equal((await pageOf(other.clientSecret)).from_balance_amount, 1000);
    assert.equal(await renewalUses(), 1000, 'given back when the payment failed');
  });

  it('spends no credit of a customer matched only by the email the buyer typed', async () => {
    const customer = await customerWithCredit(1000);
    const checkout = await seller.polar.checkouts.create({ products: [toolId] });
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: { ...buyerDetails(), customerEmail: customer.email },
    });
    const order = await paidOrderOf(checkout.id);
    assert.equal(order.customerId, customer.id);
    assert.equal(order.fromBalanceAmount, 0);
    assert.equal(await balanceOf(customer.id), 1000);
  });

  describe('refunds of an order the balance paid part of', () => {
    const refund = async (orderId: string, amount: number) => {
      const created = await seller.polar.refunds.create({
        orderId,
        amount,
        reason: 'customer_request',
      });
      assert.ok(created, 'the refund is answered with a body');
      return created;
    };

    /** The refund once settled, as the wire carries it (with Tollgate's additions). */
    async function settledRefund(created: Refund) {
      await eventually(
        async () => (await seller.polar.refunds.list({ id: created.id })).result.items[0],
        (found) => found !== undefined && found.status !== 'pending',
        { what: `refund ${created.id} settled` },
      );
      const read = await callV1(api, seller.token, 'GET', `/v1/refunds/${created.id}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      return read.body as {
        status: string;
        amount: number;
        to_balance_amount: number;
        credit_note_number: string | null;
      };
    }

    it('gives back to the card first, up to what it paid, then the rest to the balance', async () => {
      const customer = await customerWithCredit(1000);
      const checkout = await checkoutFor(customer.id);
      await confirm(checkout.clientSecret);
      const order = await paidOrderOf(checkout.id);
      assert.equal(await balanceOf(customer.id), 0);

      const first = await settledRefund(await refund(order.id, 500));
      assert.deepEqual([first.status, first.to_balance_amount], ['succeeded', 0]);
      assert.match(first.credit_note_number ?? '', /-CN-\d{4}$/);
      assert.equal(await balanceOf(customer.id), 0);

      // 2400 left: the card paid 1900, 500 of it back already, so 1400 more; 1000 to the balance.
      const rest = await settledRefund(await refund(order.id, 2400));
      assert.deepEqual([rest.status, rest.to_balance_amount], ['succeeded', 1000]);
      assert.notEqual(rest.credit_note_number, first.credit_note_number);
      assert.equal(await balanceOf(customer.id), 1000);
      const [credit] = await entriesOf(customer.id);
      assert.deepEqual([credit?.kind, credit?.amount], ['refund', 1000]);
      assert.equal((await seller.polar.orders.get({ id: order.id })).status, 'refunded');
    });

    it('an order the balance paid whole is refunded to the balance, without Stripe', async () => {
      const customer = await customerWithCredit(2900);
      const checkout = await checkoutFor(customer.id);
      await confirm(checkout.clientSecret, null);
      const order = await paidOrderOf(checkout.id);
      assert.equal(await balanceOf(customer.id), 0);

      const settled = await settledRefund(await refund(order.id, 2900));
      assert.deepEqual([settled.status, settled.to_balance_amount], ['succeeded', 2900]);
      assert.ok(settled.credit_note_number);
      assert.equal(await balanceOf(customer.id), 2900);
    });
  });
});
