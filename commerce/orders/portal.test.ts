import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvoiceAlreadyExists } from '@polar-sh/sdk/models/errors/invoicealreadyexists.js';
import { MissingInvoiceBillingDetails } from '@polar-sh/sdk/models/errors/missinginvoicebillingdetails.js';
import { NotPaidOrder } from '@polar-sh/sdk/models/errors/notpaidorder.js';
import { OrderNotEligibleForRetry } from '@polar-sh/sdk/models/errors/ordernoteligibleforretry.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { Order, OutboxEvent } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { declinedRenewal } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { buy } from './testing.ts';

describe('customer portal orders (/v1/customer-portal/orders/{id}/…)', () => {
  let api: TestApi;
  let seller: Seller;
  /** A buyer's paid one-time order, and the buyer's portal session. */
  let paid: { orderId: string; token: string };
  /** Another buyer of the same seller, with a session of their own. */
  let stranger: { orderId: string; token: string };
  /** A subscription whose first renewal was declined: its pending renewal order and session. */
  let declined: { subscriptionId: string; orderId: string; token: string };
  /** Another declined renewal, paid with a card its bank asks 3-D Secure for. */
  let authenticating: { subscriptionId: string; orderId: string; token: string };

  const sessionFor = async (customerId: string) =>
    (await seller.polar.customerSessions.create({ customerId })).token;

  async function buyer(productId: string) {
    const { order } = await buy(api, seller, productId);
    assert.ok(order, 'the checkout made an order');
    return { orderId: order.id, token: await sessionFor(order.customerId) };
  }

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const declinedBuyer = async (startAt: string, renewAt: string) => {
      const subscriptionId = await declinedRenewal(api, seller, plan.id, { startAt, renewAt });
      const subscription = await seller.polar.subscriptions.get({ id: subscriptionId });
      const [renewal] = await api.orm.em
        .fork()
        .find(Order, { subscription: subscriptionId, billingReason: 'subscription_cycle' });
      assert.ok(renewal);
      return {
        subscriptionId,
        orderId: renewal.id,
        token: await sessionFor(subscription.customerId),
      };
    };
    [paid, stranger, declined, authenticating] = await Promise.all([
      buyer(ebook.id),
      buyer(ebook.id),
      declinedBuyer('2027-04-01T08:00:00Z', '2027-05-01T08:00:00Z'),
      declinedBuyer('2027-04-02T08:00:00Z', '2027-05-02T08:00:00Z'),
    ]);
  });
  after(() => api.close());

  const orders = () => seller.polar.customerPortal.orders;
  const as = (token: string) => ({ customerSession: token });

  it('corrects the billing details of the customer’s own order, and records order.updated', async () => {
    const updated = await orders().update(as(paid.token), {
      id: paid.orderId,
      customerOrderUpdate: {
        billingName: 'Ada Lovelace Ltd',
        billingAddress: { country: 'GB', city: 'London', line1: '12 St James Sq' },
      },
    });
    assert.equal(updated.billingName, 'Ada Lovelace Ltd');
    assert.equal(updated.billingAddress?.country, 'GB');
    assert.equal(updated.product.organization.id, seller.organizationId);
    const events = await api.orm.em
      .fork()
      .find(OutboxEvent, { type: 'order.updated', data: { id: paid.orderId } });
    assert.ok(events.some((event) => event.data.billing_name === 'Ada Lovelace Ltd'));
  });

  it('refuses an update without both keys, or of another customer’s order', async () => {
    const partial = await callV1(
      api,
      paid.token,
      'PATCH',
      `/v1/customer-portal/orders/${paid.orderId}`,
      {
        billing_name: 'Only the name',
      },
    );
    assert.equal(partial.status, 422);
    assert.deepEqual(partial.body.detail[0].loc, ['body', 'billing_address']);
    await assert.rejects(
      orders().update(as(stranger.token), {
        id: paid.orderId,
        customerOrderUpdate: { billingName: 'Taken', billingAddress: null },
      }),
      ResourceNotFound,
    );
    const row = await api.orm.em.fork().findOneOrFail(Order, paid.orderId);
    assert.notEqual(row.billingName, 'Taken');
  });

  it('makes out the invoice once, then hands out its link', async () => {
    const { orderId, token } = stranger;
    await assert.rejects(orders().invoice(as(token), { id: orderId }), ResourceNotFound);
    await orders().generateInvoice(as(token), { id: orderId });
    await assert.rejects(
      orders().generateInvoice(as(token), { id: orderId }),
      InvoiceAlreadyExists,
    );
    const { url } = await orders().invoice(as(token), { id: orderId });
    // The URL is on the configured public address; this test's API listens elsewhere.
    const { pathname, search } = new URL(url);
    const document = await fetch(`${api.url}${pathname}${search}`);
    assert.equal(document.status, 200);
    assert.match(await document.text(), /Invoice /);
    // Another customer neither reads nor makes out this one.
    await assert.rejects(orders().invoice(as(paid.token), { id: orderId }), ResourceNotFound);
    await assert.rejects(
      orders().generateInvoice(as(paid.token), { id: orderId }),
      (error: unknown) => error instanceof SDKError && error.statusCode === 404,
    );
  });

  it('refuses an invoice without billing details, or for an order not paid', async () => {
    await orders().update(as(paid.token), {
      id: paid.orderId,
      customerOrderUpdate: { billingName: null, billingAddress: null },
    });
    await assert.rejects(
      orders().generateInvoice(as(paid.token), { id: paid.orderId }),
      MissingInvoiceBillingDetails,
    );
    await assert.rejects(
      orders().generateInvoice(as(declined.token), { id: declined.orderId }),
      NotPaidOrder,
    );
  });

  it('tells the payment status: paid, or declined with a readable reason', async () => {
    assert.deepEqual(await orders().getPaymentStatus(as(paid.token), { id: paid.orderId }), {
      status: 'succeeded',
      error: null,
    });
    assert.deepEqual(
      await orders().getPaymentStatus(as(declined.token), { id: declined.orderId }),
      { status: 'failed', error: 'The card has insufficient funds.' },
    );
    await assert.rejects(
      orders().getPaymentStatus(as(paid.token), { id: declined.orderId }),
      ResourceNotFound,
    );
  });

  it('retries only the open renewal order of the customer’s failing subscription', async () => {
    await assert.rejects(
      orders().confirmRetryPayment(as(paid.token), {
        id: paid.orderId,
        customerOrderConfirmPayment: { paymentMethodId: 'pm_card_visa' },
      }),
      OrderNotEligibleForRetry,
    );
    await assert.rejects(
      orders().confirmRetryPayment(as(stranger.token), {
        id: declined.orderId,
        customerOrderConfirmPayment: { paymentMethodId: 'pm_card_visa' },
      }),
      ResourceNotFound,
    );
    const forged = await callV1(
      api,
      declined.token,
      'POST',
      `/v1/customer-portal/orders/${declined.orderId}/confirm-payment`,
      { payment_method_id: 'card_1234' },
    );
    assert.equal(forged.status, 422);
    assert.deepEqual(forged.body.detail[0].loc, ['body', 'payment_method_id']);
  });

  it('pays the failed renewal with a new card: the subscription is active on that card', async () => {
    const confirmed = await orders().confirmRetryPayment(as(declined.token), {
      id: declined.orderId,
      customerOrderConfirmPayment: { paymentMethodId: 'pm_card_visa' },
    });
    assert.deepEqual(confirmed, { status: 'succeeded' });
    const subscription = await seller.polar.subscriptions.get({ id: declined.subscriptionId });
    assert.equal(subscription.status, 'active');
    const order = await orders().get(as(declined.token), { id: declined.orderId });
    assert.equal(order.status, 'paid');
    const wire = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/subscriptions/${declined.subscriptionId}`,
    );
    assert.equal(wire.body.recovered_by, 'customer');
    assert.equal(wire.body.recovered_at, '2027-05-01T08:00:00.000Z');
    // Paid: nothing left to retry.
    await assert.rejects(
      orders().confirmRetryPayment(as(declined.token), {
        id: declined.orderId,
        customerOrderConfirmPayment: { paymentMethodId: 'pm_card_visa' },
      }),
      OrderNotEligibleForRetry,
    );
  });

  it('names the 3-D Secure challenge of a renewal payment (next_action_url), and settles it once authenticated', async () => {
    const answer = await callV1(
      api,
      authenticating.token,
      'POST',
      `/v1/customer-portal/orders/${authenticating.orderId}/confirm-payment`,
      { payment_method_id: 'pm_card_threeDSecure2Required' },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'requires_action');
    const paymentIntentId = String(answer.body.client_secret).split('_secret_')[0] ?? '';
    assert.match(paymentIntentId, /^pi_/);
    // The simulator's test challenge for that PaymentIntent, where a page without Stripe.js goes.
    assert.match(answer.body.next_action_url, new RegExp(`/_simulator/3ds/${paymentIntentId}$`));
    const challenge = await fetch(answer.body.next_action_url);
    assert.equal(challenge.status, 200);
    assert.match(await challenge.text(), /3-D Secure test challenge/);

    await stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '').authenticatePayment(
      paymentIntentId,
    );
    await eventually(
      () => orders().getPaymentStatus(as(authenticating.token), { id: authenticating.orderId }),
      (status) => status.status === 'succeeded',
      { what: 'the authenticated renewal paid', timeoutMs: 60_000 },
    );
    const subscription = await seller.polar.subscriptions.get({
      id: authenticating.subscriptionId,
    });
    assert.equal(subscription.status, 'active');
  });

  it('answers only session holders', async () => {
    const anonymous = await callV1(
      api,
      null,
      'GET',
      `/v1/customer-portal/orders/${paid.orderId}/payment-status`,
    );
    assert.equal(anonymous.status, 401);
    await assert.rejects(
      orders().getPaymentStatus(as('polar_cst_forged'), { id: paid.orderId }),
      (error: unknown) => error instanceof SDKError && error.statusCode === 401,
    );
  });
});
