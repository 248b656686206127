import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { eventually } from '../devstack/eventually.ts';
import { allScopes } from '../domain/scopes.ts';
import { createAccessToken } from './access-tokens/service.ts';
import { signedInMember } from './access-tokens/testing.ts';
import type { AttackerObjects, VictimObjects } from './adversarial-routes.ts';
import { uploadDownloadable } from './benefit-grants/testing.ts';
import { buy, buyerClient, buyerDetails } from './orders/testing.ts';
import { callV1, createSeller, type Seller, type TestApi } from './testing.ts';
import { type Receiver, startReceiver } from './webhooks/testing.ts';

const tag = () => randomBytes(5).toString('hex');

/** Who sends a request: the headers that make it theirs. */
export interface Caller {
  name: string;
  headers: Record<string, string>;
}

const bearer = (name: string, token: string): Caller => ({
  name,
  headers: { authorization: `Bearer ${token}` },
});

/** A /v1 call the table's attacks are made of; answers the status and the body's text. */
async function v1(api: TestApi, seller: Seller, method: string, path: string, body?: unknown) {
  const answer = await callV1(api, seller.token, method, path, body);
  assert.ok(
    answer.status >= 200 && answer.status < 300,
    `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`,
  );
  return answer.body;
}

const fixedPrice = { amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' };

/** The victim's objects, made through its own API the way a seller and its buyers make them. */
async function victimObjects(api: TestApi, victim: Seller, receiver: Receiver) {
  const call = (method: string, path: string, body?: unknown) =>
    v1(api, victim, method, path, body);
  const endpoint = await call('POST', '/v1/webhooks/endpoints', {
    url: receiver.url,
    format: 'raw',
    events: ['customer.created'],
  });
  const file = await uploadDownloadable(api, victim, 'secret.txt', Buffer.from('victim secret'));
  const licenseBenefit = await call('POST', '/v1/benefits', {
    type: 'license_keys',
    description: 'Victim license',
    properties: { prefix: 'VICTIM', activations: { limit: 3, enable_customer_admin: true } },
  });
  const downloadableBenefit = await call('POST', '/v1/benefits', {
    type: 'downloadables',
    description: 'Victim files',
    properties: { files: [file.id] },
  });
  const product = await call('POST', '/v1/products', {
    name: `Victim product ${tag()}`,
    prices: [fixedPrice],
  });
  await call('POST', `/v1/products/${product.id}/benefits`, {
    benefits: [licenseBenefit.id, downloadableBenefit.id],
  });
  const recurringProduct = await call('POST', '/v1/products', {
    name: `Victim plan ${tag()}`,
    recurring_interval: 'month',
    prices: [fixedPrice],
  });
  const meter = await call('POST', '/v1/meters', {
    name: 'Victim meter',
    filter: { conjunction: 'and', clauses: [] },
    aggregation: { func: 'count' },
  });
  const customField = await call('POST', '/v1/custom-fields', {
    type: 'text',
    slug: `victim-${tag()}`,
    name: 'Victim field',
    properties: {},
  });
  const taxRate = await call('POST', '/v1/tax-rates', {
    country: 'DE',
    rate_bps: 1900,
    display_name: 'VAT DE',
  });
  const discount = await call('POST', '/v1/discounts', {
    name: 'Victim discount',
    type: 'percentage',
    basis_points: 1000,
    duration: 'once',
  });
  const checkoutLink = await call('POST', '/v1/checkout-links', {
    payment_processor: 'stripe',
    products: [product.id],
  });
  const testClock = await call('POST', '/v1/test-clocks', { name: 'Victim clock' });
  const known = await call('POST', '/v1/customers', {
    email: `victim-known-${tag()}@example.com`,
    external_id: `victim-${tag()}`,
  });

  const { order } = await buy(api, victim, product.id);
  assert.ok(order, 'the victim’s purchase made an order');
  const buyer = { id: order.customer.id, email: order.customer.email };

  // The buyer subscribes too: its portal session reads its own subscription.
  const planCheckout = await victim.polar.checkouts.create({ products: [recurringProduct.id] });
  await buyerClient(api).checkouts.clientConfirm({
    clientSecret: planCheckout.clientSecret,
    checkoutConfirmStripe: { ...buyerDetails(), customerEmail: buyer.email },
  });
  const subscribed = await eventually(
    () => victim.polar.checkouts.get({ id: planCheckout.id }),
    (found) => found.status === 'succeeded' && found.subscriptionId !== null,
    { what: 'the victim’s subscription' },
  );

  const [licenseKey] = (
    await eventually(
      () => call('GET', `/v1/license-keys?customer_id=${buyer.id}`),
      (page) => page.items.length === 1,
      { what: 'the buyer’s license key' },
    )
  ).items;
  const activation = await call('POST', '/v1/license-keys/activate', {
    key: licenseKey.key,
    organization_id: victim.organizationId,
    label: 'laptop',
  });
  const [grant] = (
    await eventually(
      () => call('GET', `/v1/benefits/${licenseBenefit.id}/grants?customer_id=${buyer.id}`),
      (page) => page.items.length === 1,
      { what: 'the buyer’s license key grant' },
    )
  ).items;
  const refund = await call('POST', '/v1/refunds', {
    order_id: order.id,
    reason: 'customer_request',
    amount: 100,
  });
  // Settled before any check: a refund the simulator settles later would change the victim's
  // rows while the suite compares them.
  await eventually(
    () => call('GET', `/v1/refunds/${refund.id}`),
    (found) => found.status === 'succeeded',
    { what: 'the victim’s refund settled' },
  );
  await call('POST', `/v1/orders/${order.id}/invoice`);
  const [payment] = (await call('GET', `/v1/payments?order_id=${order.id}`)).items;
  assert.ok(payment, 'the victim’s order has a payment');

  await call('POST', '/v1/events/ingest', {
    events: [{ name: 'api_call', customer_id: buyer.id }],
  });
  const [event] = (
    await eventually(
      () => call('GET', `/v1/events?customer_id=${buyer.id}&name=api_call`),
      (page) => page.items.length === 1,
      { what: 'the buyer’s usage event' },
    )
  ).items;
  const [customerMeter] = (
    await eventually(
      () => call('GET', `/v1/customer-meters?customer_id=${buyer.id}&meter_id=${meter.id}`),
      (page) => page.items.length === 1,
      { what: 'the buyer’s customer meter' },
    )
  ).items;

  const openCheckout = await call('POST', '/v1/checkouts', { products: [product.id] });
  await receiver.receivedAtLeast(1, 'a webhook delivery of the victim');
  const [delivery] = (
    await eventually(
      () => call('GET', `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`),
      (page) => page.items.length > 0,
      { what: 'the victim’s webhook deliveries' },
    )
  ).items;

  return {
    organizationId: victim.organizationId,
    productId: product.id,
    recurringProductId: recurringProduct.id,
    buyer,
    known: { id: known.id, externalId: known.external_id },
    orderId: order.id,
    checkoutId: order.checkoutId as string,
    openCheckout: { id: openCheckout.id, clientSecret: openCheckout.client_secret },
    subscriptionId: subscribed.subscriptionId as string,
    paymentId: payment.id,
    refundId: refund.id,
    licenseBenefitId: licenseBenefit.id,
    downloadableBenefitId: downloadableBenefit.id,
    grantId: grant.id,
    licenseKey: { id: licenseKey.id, key: licenseKey.key, activationId: activation.id },
    fileId: file.id,
    meterId: meter.id,
    eventId: event.id,
    customerMeterId: customerMeter.id,
    checkoutLink: { id: checkoutLink.id, clientSecret: checkoutLink.client_secret },
    customFieldId: customField.id,
    taxRateId: taxRate.id,
    discountId: discount.id,
    webhookEndpointId: endpoint.id,
    webhookEventId: delivery.webhook_event.id,
    testClockId: testClock.id,
  } satisfies Omit<VictimObjects, 'accessTokenId'>;
}

/** The attacker's own objects and a customer of its own with a portal session. */
async function attackerObjects(api: TestApi, attacker: Seller) {
  const call = (method: string, path: string, body?: unknown) =>
    v1(api, attacker, method, path, body);
  const product = await call('POST', '/v1/products', {
    name: 'Attacker product',
    prices: [fixedPrice],
  });
  const benefit = await call('POST', '/v1/benefits', {
    type: 'custom',
    description: 'Attacker benefit',
    properties: { note: null },
  });
  const meter = await call('POST', '/v1/meters', {
    name: 'Attacker meter',
    filter: { conjunction: 'and', clauses: [] },
    aggregation: { func: 'count' },
  });
  const customer = await call('POST', '/v1/customers', { email: `attacker-${tag()}@example.com` });
  const session = await call('POST', '/v1/customer-sessions', { customer_id: customer.id });
  const objects: AttackerObjects = {
    organizationId: attacker.organizationId,
    productId: product.id,
    benefitId: benefit.id,
    meterId: meter.id,
  };
  return { objects, sessionToken: session.token as string };
}

/**
 * Two sellers: the victim, with one of each kind of object (bought, granted, refunded,
 * delivered) and the callers of its own organization that lack a scope; and the attacker, with
 * a full-scope token and a customer of its own.
 */
export async function adversarialWorld(api: TestApi) {
  const receiver = await startReceiver();
  const victim = await createSeller(api);
  const attacker = await createSeller(api);
  const em = api.orm.em.fork();
  const unscoped = await createAccessToken(em, {
    organizationId: victim.organizationId,
    comment: 'no scope',
    scopes: [],
  });
  const readOnly = await createAccessToken(em, {
    organizationId: victim.organizationId,
    comment: 'read only',
    scopes: allScopes.filter((scope) => scope.endsWith(':read')),
  });
  const signedIn = async (name: string, organizationId: string, role: string) => {
    const person = await signedInMember(api, organizationId, role);
    // The dashboard's origin: cookie requests that change things must come from it.
    const origin = new URL(api.config.api.publicUrl).origin;
    return { name, headers: { cookie: person.cookies.header(), origin } } satisfies Caller;
  };
  const [victimObjectsMade, attackerMade] = await Promise.all([
    victimObjects(api, victim, receiver),
    attackerObjects(api, attacker),
  ]);
  const victimSession = async (customerId: string) =>
    (await v1(api, victim, 'POST', '/v1/customer-sessions', { customer_id: customerId }))
      .token as string;
  const fixtures = {
    victim: { ...victimObjectsMade, accessTokenId: unscoped.accessToken.id },
    attacker: attackerMade.objects,
  };
  return {
    fixtures,
    receiver,
    victim: bearer('the victim’s own token', victim.token),
    attacker: bearer('another organization’s full-scope token', attacker.token),
    unscoped: bearer('a victim token without scopes', unscoped.token),
    readOnly: bearer('a victim token with every read scope', readOnly.token),
    victimOwner: await signedIn('the victim’s owner', victim.organizationId, 'owner'),
    attackerOwner: await signedIn(
      'another organization’s owner (dashboard session)',
      attacker.organizationId,
      'owner',
    ),
    member: await signedIn('a read-only member of the victim', victim.organizationId, 'member'),
    buyerSession: bearer(
      'the buyer’s portal session',
      await victimSession(fixtures.victim.buyer.id),
    ),
    portalStrangers: [
      bearer('a portal session of another organization’s customer', attackerMade.sessionToken),
      bearer(
        'a portal session of another customer of the victim',
        await victimSession(fixtures.victim.known.id),
      ),
    ] as const,
  };
}
export type AdversarialWorld = Awaited<ReturnType<typeof adversarialWorld>>;
