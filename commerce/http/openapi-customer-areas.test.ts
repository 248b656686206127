import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { paidOrder, productWithBenefits } from '../benefit-grants/testing.ts';
import { subscribeOnTestClock } from '../subscriptions/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('the customer areas answer as their OpenAPI operations document', () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  // The SDK client checks each answer against the document (commerce/testing.ts): the journey
  // fails on the first answer that differs.
  it('validates a journey through customers, orders, subscriptions, sessions, webhooks, clocks and lists', async () => {
    const polar = seller.polar;
    const customer = await polar.customers.create({
      email: `buyer-${randomUUID().slice(0, 8)}@example.com`,
      name: 'Ada',
      externalId: `ext-${randomUUID()}`,
      billingAddress: { country: 'FR', city: 'Paris', line1: '1 rue de Rivoli' },
      metadata: { plan: 'gold', seats: 3, vip: true },
    });
    await polar.customers.get({ id: customer.id });
    await polar.customers.getExternal({ externalId: customer.externalId as string });
    await polar.customers.update({ id: customer.id, customerUpdate: { name: 'Ada L.' } });
    await polar.customers.getState({ id: customer.id });
    await polar.customers.getBalance({ id: customer.id });
    await polar.customers.list({});
    await polar.customerSessions.create({ customerId: customer.id });

    const product = await productWithBenefits(seller, []);
    const order = await paidOrder(api, seller, customer.id, product.id, { source: 'test' });
    await polar.orders.get({ id: order.id });
    await polar.orders.list({});
    await polar.orders.update({
      id: order.id,
      orderUpdate: { billingName: 'Ada L.', billingAddress: null },
    });

    const plan = await polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { subscriptionId } = await subscribeOnTestClock(
      api,
      seller,
      plan.id,
      '2026-01-01T00:00:00Z',
    );
    const subscription = await polar.subscriptions.get({ id: subscriptionId });
    await polar.subscriptions.list({});
    const session = await polar.customerSessions.create({ customerId: subscription.customerId });
    const security = { customerSession: session.token };
    await polar.customerPortal.subscriptions.get(security, { id: subscriptionId });
    await polar.customerPortal.subscriptions.list(security, {});

    const endpoint = await polar.webhooks.createWebhookEndpoint({
      url: 'http://127.0.0.1:9/hooks',
      format: 'raw',
      events: ['order.paid'],
    });
    await polar.webhooks.getWebhookEndpoint({ id: endpoint.id });
    await polar.webhooks.updateWebhookEndpoint({
      id: endpoint.id,
      webhookEndpointUpdate: { events: ['order.paid', 'order.refunded'] },
    });
    await polar.webhooks.resetWebhookEndpointSecret({ id: endpoint.id });
    await polar.webhooks.listWebhookEndpoints({});
    await polar.webhooks.listWebhookDeliveries({});

    await polar.refunds.list({});
    await polar.payments.list({});
    await polar.licenseKeys.list({});
  });
});
