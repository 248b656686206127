import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { paidOrder, productWithBenefits } from '../benefit-grants/testing.ts';
import { customerSessionOperations } from '../customer-sessions/operations.ts';
import { customerOperations } from '../customers/operations.ts';
import { licenseKeyOperations } from '../license-keys/operations.ts';
import { orderOperations } from '../orders/operations.ts';
import { paymentOperations } from '../payments/operations.ts';
import { refundOperations } from '../refunds/operations.ts';
import {
  customerPortalSubscriptionOperations,
  subscriptionOperations,
} from '../subscriptions/operations.ts';
import { subscribeOnTestClock } from '../subscriptions/testing.ts';
import { testClockOperations } from '../test-clocks/operations.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { webhookOperations } from '../webhooks/operations.ts';
import type { Operation } from './openapi.ts';

const operations: Operation[] = [
  ...customerOperations,
  ...customerSessionOperations,
  ...licenseKeyOperations,
  ...orderOperations,
  ...paymentOperations,
  ...refundOperations,
  ...subscriptionOperations,
  ...customerPortalSubscriptionOperations,
  ...testClockOperations,
  ...webhookOperations,
];

/** The operation documenting `method path`: its Koa path template matched as a pattern. */
function operationOf(method: string, path: string): Operation | undefined {
  const bare = path.replace(/\/$/, '');
  return operations.find(
    (operation) =>
      operation.method === method.toLowerCase() &&
      new RegExp(`^${operation.path.replace(/\/$/, '').replace(/:\w+/g, '[^/]+')}$`).test(bare),
  );
}

/**
 * Every JSON answer the SDK receives, checked against the response schema of its operation:
 * what the document promises is what the routes answer.
 */
function validateAnswers(polar: Polar) {
  const checked: string[] = [];
  const failures: string[] = [];
  polar._options.httpClient?.addHook('response', async (response, request) => {
    if (!response.ok || !response.headers.get('content-type')?.includes('json')) return;
    const url = new URL(request.url);
    const operation = operationOf(request.method, url.pathname);
    if (!operation) return;
    const body = await response.clone().json();
    const result = operation.response.schema?.safeParse(body);
    checked.push(operation.operationId);
    if (response.status !== operation.response.status) {
      failures.push(
        `${operation.operationId}: ${response.status}, documented ${operation.response.status}`,
      );
    }
    if (result && !result.success) {
      failures.push(`${operation.operationId}: ${JSON.stringify(result.error.issues)}`);
    }
  });
  return { checked, failures };
}

describe('the customer areas answer as their OpenAPI operations document', () => {
  let api: TestApi;
  let seller: Seller;
  let answers: ReturnType<typeof validateAnswers>;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    answers = validateAnswers(seller.polar);
  });
  after(() => api.close());

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

    assert.deepEqual(answers.failures, []);
    for (const operationId of [
      'customers:create',
      'customers:get',
      'customers:get_external',
      'customers:update',
      'customers:get_state',
      'customers:get_balance',
      'customers:list',
      'customer_sessions:create',
      'orders:get',
      'orders:list',
      'orders:update',
      'subscriptions:get',
      'subscriptions:list',
      'customer_portal:subscriptions:get',
      'customer_portal:subscriptions:list',
      'webhooks:create_webhook_endpoint',
      'webhooks:list_webhook_deliveries',
      'refunds:list',
      'payments:list',
      'license_keys:list',
    ]) {
      assert.ok(answers.checked.includes(operationId), `${operationId} was checked`);
    }
  });
});
