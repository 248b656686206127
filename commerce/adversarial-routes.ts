import type { Scope } from '../domain/scopes.ts';

/**
 * The adversarial suite's table (commerce/adversarial.test.ts): every /v1 route of the route
 * table, keyed `METHOD /path` as @koa/router holds it, with the request that would succeed for
 * the victim organization (its own objects) and what callers that must not succeed get instead.
 * A route missing here, or an entry naming no route, fails the suite: a new route gets its
 * attacks by adding its line.
 */

/** The victim organization's objects, made through the API by the suite. */
export interface VictimObjects {
  organizationId: string;
  productId: string;
  recurringProductId: string;
  /** The buyer of the one-time product: its order, payment, grants, license key. */
  buyer: { id: string; email: string };
  /** A customer the seller created with an external id. */
  known: { id: string; externalId: string };
  orderId: string;
  checkoutId: string;
  openCheckout: { id: string; clientSecret: string };
  subscriptionId: string;
  paymentId: string;
  refundId: string;
  licenseBenefitId: string;
  downloadableBenefitId: string;
  grantId: string;
  licenseKey: { id: string; key: string; activationId: string };
  fileId: string;
  meterId: string;
  eventId: string;
  customerMeterId: string;
  checkoutLink: { id: string; clientSecret: string };
  customFieldId: string;
  taxRateId: string;
  discountId: string;
  webhookEndpointId: string;
  webhookEventId: string;
  accessTokenId: string;
  testClockId: string;
}

/** The attacking organization's own objects, for requests that mix them with the victim's. */
export interface AttackerObjects {
  organizationId: string;
  productId: string;
  benefitId: string;
  meterId: string;
}

export interface Fixtures {
  victim: VictimObjects;
  attacker: AttackerObjects;
}

export interface RouteRequest {
  path: string;
  body?: unknown;
}

/**
 * How a caller that must not reach the victim's objects is answered:
 * - `not_found`: 404 (the route names a victim object in its path);
 * - `refused`: 403, 404 or 422 (the body names victim objects); with `refusedAt`, a 422 may
 *   only be about those body fields (so the rest of the body is known to be valid);
 * - `own`: anything but 5xx, about the caller's own organization or customer: the answer must
 *   hold none of the victim's objects.
 */
export type StrangerAnswer = 'not_found' | 'refused' | 'own';

export interface RouteCase {
  /**
   * Who may call it. Absent: the scope its `scope()` middleware names. `scope` with `why`: one
   * the route picks per request (the table's request decides which). `customerSession`: the
   * customer portal (`polar_cst_` session); strangers are other customers. `anonymous`: no
   * credentials by design (the reason), attacked with the victim's ids.
   */
  access?: { scope: Scope; why: string } | { customerSession: true } | { anonymous: string };
  /** One or more requests, each valid for the victim itself (or for its customer). */
  request: (fixtures: Fixtures) => RouteRequest | RouteRequest[];
  stranger?: StrangerAnswer;
  refusedAt?: string[];
  /**
   * A list: the query parameters it reads, each attacked with hostile values by a stranger on
   * its own collection (`path`, default the route's own path).
   */
  list?: { params: string[]; path?: (fixtures: Fixtures) => string };
}

const year = '2030-01-01T00:00:00Z';
const later = '2030-02-01T00:00:00Z';
const fixedPrice = { amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' };

/** Every /v1 route: the suite checks this table against the route table both ways. */
export const routeCases: Record<string, RouteCase> = {
  // Organizations
  'GET /v1/organizations': {
    request: () => ({ path: '/v1/organizations' }),
    stranger: 'own',
    list: { params: ['slug', 'sorting'] },
  },
  'GET /v1/organizations/:id': {
    request: ({ victim }) => ({ path: `/v1/organizations/${victim.organizationId}` }),
  },
  'PATCH /v1/organizations/:id': {
    request: ({ victim }) => ({
      path: `/v1/organizations/${victim.organizationId}`,
      body: { name: 'Taken over' },
    }),
  },
  'POST /v1/organizations': {
    access: {
      anonymous: 'a signed-in person creates an organization they then own; tokens cannot',
    },
    request: () => ({ path: '/v1/organizations', body: { name: 'Planted', slug: 'planted' } }),
  },

  // Files
  'GET /v1/files': {
    request: () => ({ path: '/v1/files' }),
    stranger: 'own',
    list: { params: ['ids'] },
  },
  'POST /v1/files': {
    request: ({ victim }) => ({
      path: '/v1/files',
      body: {
        organization_id: victim.organizationId,
        service: 'downloadable',
        name: 'planted.txt',
        mime_type: 'text/plain',
        size: 1,
        upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 1 }] },
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'POST /v1/files/:id/uploaded': {
    request: ({ victim }) => ({
      path: `/v1/files/${victim.fileId}/uploaded`,
      body: {
        id: 'upload',
        path: 'path',
        parts: [{ number: 1, checksum_etag: 'etag', checksum_sha256_base64: null }],
      },
    }),
  },
  'PATCH /v1/files/:id': {
    request: ({ victim }) => ({
      path: `/v1/files/${victim.fileId}`,
      body: { name: 'renamed.txt' },
    }),
  },
  'DELETE /v1/files/:id': { request: ({ victim }) => ({ path: `/v1/files/${victim.fileId}` }) },
  'OPTIONS /v1/files/uploads/:grant': {
    access: { anonymous: 'CORS preflight of signed part uploads: answers headers only' },
    request: ({ victim }) => ({ path: `/v1/files/uploads/${victim.fileId}` }),
    stranger: 'own',
  },
  'PUT /v1/files/uploads/:grant': {
    access: { anonymous: 'part uploads: the signed URL is the credential' },
    request: ({ victim }) => ({ path: `/v1/files/uploads/${victim.fileId}`, body: 'x' }),
    stranger: 'refused',
  },
  'GET /v1/files/public/:id/:name': {
    access: { anonymous: 'product media and avatars are public; downloadables are not' },
    request: ({ victim }) => ({ path: `/v1/files/public/${victim.fileId}/secret.txt` }),
  },

  // Organization access tokens
  'GET /v1/organization-access-tokens': {
    request: () => ({ path: '/v1/organization-access-tokens' }),
    stranger: 'own',
    list: { params: ['sorting'] },
  },
  'POST /v1/organization-access-tokens': {
    request: ({ victim }) => ({
      path: '/v1/organization-access-tokens',
      body: {
        organization_id: victim.organizationId,
        comment: 'planted',
        scopes: ['customers:read'],
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'PATCH /v1/organization-access-tokens/:id': {
    request: ({ victim }) => ({
      path: `/v1/organization-access-tokens/${victim.accessTokenId}`,
      body: { scopes: ['customers:write'] },
    }),
  },
  'DELETE /v1/organization-access-tokens/:id': {
    request: ({ victim }) => ({ path: `/v1/organization-access-tokens/${victim.accessTokenId}` }),
  },

  // Customers
  'GET /v1/customers': {
    request: () => ({ path: '/v1/customers' }),
    stranger: 'own',
    list: { params: ['email', 'query', 'sorting'] },
  },
  'POST /v1/customers': {
    request: ({ victim }) => ({
      path: '/v1/customers',
      body: { organization_id: victim.organizationId, email: 'planted@example.com' },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/customers/export': {
    request: () => ({ path: '/v1/customers/export' }),
    stranger: 'own',
  },
  'GET /v1/customers/external/:external_id': {
    request: ({ victim }) => ({ path: `/v1/customers/external/${victim.known.externalId}` }),
  },
  'PATCH /v1/customers/external/:external_id': {
    request: ({ victim }) => ({
      path: `/v1/customers/external/${victim.known.externalId}`,
      body: { name: 'Renamed' },
    }),
  },
  'DELETE /v1/customers/external/:external_id': {
    request: ({ victim }) => ({ path: `/v1/customers/external/${victim.known.externalId}` }),
  },
  'GET /v1/customers/external/:external_id/state': {
    request: ({ victim }) => ({ path: `/v1/customers/external/${victim.known.externalId}/state` }),
  },
  'GET /v1/customers/:id': {
    request: ({ victim }) => ({ path: `/v1/customers/${victim.buyer.id}` }),
  },
  'PATCH /v1/customers/:id': {
    request: ({ victim }) => ({
      path: `/v1/customers/${victim.buyer.id}`,
      body: { name: 'Renamed' },
    }),
  },
  'DELETE /v1/customers/:id': {
    request: ({ victim }) => ({ path: `/v1/customers/${victim.buyer.id}` }),
  },
  'GET /v1/customers/:id/state': {
    request: ({ victim }) => ({ path: `/v1/customers/${victim.buyer.id}/state` }),
  },
  'GET /v1/customers/:id/balance': {
    request: ({ victim }) => ({ path: `/v1/customers/${victim.buyer.id}/balance` }),
  },
  'GET /v1/customers/:id/balance/entries': {
    request: ({ victim }) => ({ path: `/v1/customers/${victim.buyer.id}/balance/entries` }),
  },
  'POST /v1/customers/:id/balance/adjustments': {
    request: ({ victim }) => ({
      path: `/v1/customers/${victim.buyer.id}/balance/adjustments`,
      body: { amount: 500, currency: 'usd', reason: 'Goodwill' },
    }),
  },

  // Customer sessions: a portal session for someone else's customer is a takeover.
  'POST /v1/customer-sessions': {
    request: ({ victim }) => [
      { path: '/v1/customer-sessions', body: { customer_id: victim.buyer.id } },
      { path: '/v1/customer-sessions', body: { external_customer_id: victim.known.externalId } },
    ],
    stranger: 'refused',
    refusedAt: ['customer_id', 'external_customer_id'],
  },

  // Customer portal (customer sessions)
  'GET /v1/customer-portal/customers/me': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/customers/me' }),
    stranger: 'own',
  },
  'PATCH /v1/customer-portal/customers/me': {
    access: { customerSession: true },
    // The buyer's VAT number, valid against the French address it bought with: the strangers
    // have no billing country to validate it against, so nothing of theirs changes either.
    request: () => ({
      path: '/v1/customer-portal/customers/me',
      body: { tax_id: 'FR61954506077' },
    }),
    stranger: 'own',
  },
  'GET /v1/customer-portal/customers/me/payment-methods': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/customers/me/payment-methods' }),
    stranger: 'own',
    list: { params: [] },
  },
  'POST /v1/customer-portal/customers/me/payment-methods': {
    access: { customerSession: true },
    // A confirmation token is used once: one used up (or never issued) is refused before a
    // Stripe customer is made for whoever sends it.
    request: () => ({
      path: '/v1/customer-portal/customers/me/payment-methods',
      body: {
        confirmation_token_id: 'ctoken_1UsedUpByTheBuyer',
        set_default: true,
        return_url: 'https://shop.example.com/portal',
      },
    }),
    stranger: 'refused',
    refusedAt: ['confirmation_token_id'],
  },
  'POST /v1/customer-portal/customers/me/payment-methods/confirm': {
    access: { customerSession: true },
    request: () => ({
      path: '/v1/customer-portal/customers/me/payment-methods/confirm',
      body: { setup_intent_id: 'seti_1TheBuyersCard', set_default: true },
    }),
    stranger: 'refused',
  },
  'DELETE /v1/customer-portal/customers/me/payment-methods/:id': {
    access: { customerSession: true },
    // The test card the victim's buyers pay with.
    request: () => ({ path: '/v1/customer-portal/customers/me/payment-methods/pm_card_visa' }),
  },
  'GET /v1/customer-portal/benefit-grants/': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/benefit-grants/' }),
    stranger: 'own',
    list: {
      params: [
        'type',
        'benefit_id',
        'organization_id',
        'checkout_id',
        'order_id',
        'subscription_id',
        'sorting',
      ],
    },
  },
  'GET /v1/customer-portal/benefit-grants/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/benefit-grants/${victim.grantId}` }),
  },
  'PATCH /v1/customer-portal/benefit-grants/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/benefit-grants/${victim.grantId}`,
      body: { benefit_type: 'license_keys', properties: {} },
    }),
  },
  'GET /v1/customer-portal/orders': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/orders/' }),
    stranger: 'own',
    list: {
      params: [
        'query',
        'organization_id',
        'product_id',
        'product_billing_type',
        'subscription_id',
        'sorting',
      ],
    },
  },
  'GET /v1/customer-portal/orders/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/orders/${victim.orderId}` }),
  },
  'PATCH /v1/customer-portal/orders/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/orders/${victim.orderId}`,
      body: { billing_name: 'Taken over', billing_address: null },
    }),
  },
  'POST /v1/customer-portal/orders/:id/invoice': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/orders/${victim.orderId}/invoice` }),
  },
  'GET /v1/customer-portal/orders/:id/invoice': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/orders/${victim.orderId}/invoice` }),
  },
  'GET /v1/customer-portal/orders/:id/payment-status': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/orders/${victim.orderId}/payment-status`,
    }),
  },
  'POST /v1/customer-portal/orders/:id/confirm-payment': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/orders/${victim.orderId}/confirm-payment`,
      body: { payment_method_id: 'pm_card_visa' },
    }),
  },
  'GET /v1/customer-portal/oauth-accounts/authorize': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/oauth-accounts/authorize?platform=github' }),
    stranger: 'own',
  },
  'GET /v1/customer-portal/oauth-accounts/callback': {
    access: {
      anonymous: 'the platform redirects the browser here: the signed state is the credential',
    },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/oauth-accounts/callback?state=${victim.buyer.id}&code=stolen`,
    }),
    stranger: 'refused',
  },
  'GET /v1/customer-portal/downloadables/': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/downloadables/' }),
    stranger: 'own',
    list: { params: ['benefit_id', 'organization_id'] },
  },
  'GET /v1/customer-portal/downloadables/files/:grant': {
    access: { anonymous: 'download links: the signed URL is the credential' },
    request: ({ victim }) => ({ path: `/v1/customer-portal/downloadables/files/${victim.fileId}` }),
    stranger: 'refused',
  },
  'GET /v1/customer-portal/license-keys': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/license-keys' }),
    stranger: 'own',
    list: { params: ['benefit_id', 'organization_id'] },
  },
  'GET /v1/customer-portal/license-keys/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/license-keys/${victim.licenseKey.id}` }),
  },
  // Getting into the portal by a mailed link: the mailbox is the credential, so asking needs
  // none, and the answer is the same 202 for every address (a customer's address would make the
  // worker issue a link row meanwhile: the suite asks for one nobody has).
  'POST /v1/customer-portal/customer-session/request': {
    access: { anonymous: 'customers ask for a sign-in link mailed to their own address' },
    request: ({ victim }) => ({
      path: '/v1/customer-portal/customer-session/request',
      body: { organization_id: victim.organizationId, email: 'nobody-here@example.com' },
    }),
    stranger: 'own',
  },
  'POST /v1/customer-portal/customer-session/authenticate': {
    access: { anonymous: 'the token of the mailed link is the credential' },
    request: () => ({
      path: '/v1/customer-portal/customer-session/authenticate',
      body: { token: 'tollgate_csl_guessed' },
    }),
    stranger: 'refused',
  },
  'GET /v1/customer-portal/subscriptions': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/subscriptions/' }),
    stranger: 'own',
    list: { params: ['organization_id', 'product_id', 'active', 'query', 'sorting'] },
  },
  'GET /v1/customer-portal/subscriptions/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/subscriptions/${victim.subscriptionId}`,
    }),
  },
  'PATCH /v1/customer-portal/subscriptions/:id': {
    access: { customerSession: true },
    request: ({ victim, attacker }) => [
      {
        path: `/v1/customer-portal/subscriptions/${victim.subscriptionId}`,
        body: { cancel_at_period_end: true, cancellation_reason: 'other' },
      },
      {
        path: `/v1/customer-portal/subscriptions/${victim.subscriptionId}`,
        body: { product_id: attacker.productId },
      },
    ],
  },
  'DELETE /v1/customer-portal/subscriptions/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/subscriptions/${victim.subscriptionId}`,
    }),
  },
  'GET /v1/customer-portal/meters/': {
    access: { customerSession: true },
    request: () => ({ path: '/v1/customer-portal/meters/' }),
    stranger: 'own',
    list: { params: ['meter_id', 'query', 'sorting'] },
  },
  'GET /v1/customer-portal/meters/:id': {
    access: { customerSession: true },
    request: ({ victim }) => ({ path: `/v1/customer-portal/meters/${victim.customerMeterId}` }),
  },
  // The storefront shows what a seller offers to anyone who knows its slug; an id is no slug.
  'GET /v1/customer-portal/organizations/:slug': {
    access: { anonymous: 'the public storefront: what a seller offers, by its slug' },
    request: ({ victim }) => ({
      path: `/v1/customer-portal/organizations/${victim.organizationId}`,
    }),
  },
  // Apps check the key a customer typed in: the key and its organization are the credential.
  'POST /v1/customer-portal/license-keys/validate': {
    access: { anonymous: 'apps validate keys their users typed in' },
    request: ({ victim, attacker }) => ({
      path: '/v1/customer-portal/license-keys/validate',
      body: { key: victim.licenseKey.key, organization_id: attacker.organizationId },
    }),
  },
  'POST /v1/customer-portal/license-keys/activate': {
    access: { anonymous: 'apps activate keys their users typed in' },
    request: ({ victim, attacker }) => ({
      path: '/v1/customer-portal/license-keys/activate',
      body: {
        key: victim.licenseKey.key,
        organization_id: attacker.organizationId,
        label: 'stolen',
      },
    }),
  },
  'POST /v1/customer-portal/license-keys/deactivate': {
    access: { anonymous: 'apps deactivate keys their users typed in' },
    request: ({ victim, attacker }) => ({
      path: '/v1/customer-portal/license-keys/deactivate',
      body: {
        key: victim.licenseKey.key,
        organization_id: attacker.organizationId,
        activation_id: victim.licenseKey.activationId,
      },
    }),
  },

  // Products
  'GET /v1/products': {
    request: () => ({ path: '/v1/products' }),
    stranger: 'own',
    list: {
      params: [
        'id',
        'organization_id',
        'query',
        'is_archived',
        'is_recurring',
        'benefit_id',
        'sorting',
      ],
    },
  },
  'POST /v1/products': {
    request: ({ victim }) => ({
      path: '/v1/products',
      body: { organization_id: victim.organizationId, name: 'Planted', prices: [fixedPrice] },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/products/:id': {
    request: ({ victim }) => ({ path: `/v1/products/${victim.productId}` }),
  },
  'PATCH /v1/products/:id': {
    request: ({ victim }) => ({
      path: `/v1/products/${victim.productId}`,
      body: { name: 'Renamed' },
    }),
  },
  'POST /v1/products/:id/benefits': {
    request: ({ victim }) => ({
      path: `/v1/products/${victim.productId}/benefits`,
      body: { benefits: [] },
    }),
  },

  // Meters
  'GET /v1/meters': {
    request: () => ({ path: '/v1/meters' }),
    stranger: 'own',
    list: { params: ['query', 'is_archived', 'sorting'] },
  },
  'POST /v1/meters': {
    request: ({ victim }) => ({
      path: '/v1/meters',
      body: {
        organization_id: victim.organizationId,
        name: 'Planted meter',
        filter: { conjunction: 'and', clauses: [] },
        aggregation: { func: 'count' },
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/meters/:id': { request: ({ victim }) => ({ path: `/v1/meters/${victim.meterId}` }) },
  'PATCH /v1/meters/:id': {
    request: ({ victim }) => ({
      path: `/v1/meters/${victim.meterId}`,
      body: { name: 'Renamed meter' },
    }),
  },
  'GET /v1/meters/:id/quantities': {
    request: ({ victim }) => ({
      path: `/v1/meters/${victim.meterId}/quantities?start_timestamp=${year}&end_timestamp=${later}&interval=day`,
    }),
    list: {
      params: [
        'start_timestamp',
        'end_timestamp',
        'interval',
        'customer_id',
        'external_customer_id',
        'customer_aggregation_function',
      ],
      path: ({ attacker }) =>
        `/v1/meters/${attacker.meterId}/quantities?start_timestamp=${year}&end_timestamp=${later}&interval=day`,
    },
  },

  // Events: ingesting for someone else's customer must not reach that customer.
  'POST /v1/events/ingest': {
    request: ({ victim }) => ({
      path: '/v1/events/ingest',
      body: { events: [{ name: 'planted', customer_id: victim.buyer.id }] },
    }),
    stranger: 'own',
  },
  'POST /v1/events/ingest/': {
    request: ({ victim }) => ({
      path: '/v1/events/ingest/',
      body: { events: [{ name: 'planted', external_customer_id: victim.known.externalId }] },
    }),
    stranger: 'own',
  },
  'GET /v1/events': {
    request: () => ({ path: '/v1/events' }),
    stranger: 'own',
    list: {
      params: [
        'filter',
        'start_timestamp',
        'end_timestamp',
        'meter_id',
        'name',
        'customer_id',
        'external_customer_id',
        'source',
        'sorting',
      ],
    },
  },
  'GET /v1/events/names': {
    request: () => ({ path: '/v1/events/names' }),
    stranger: 'own',
    list: { params: ['query', 'customer_id', 'external_customer_id', 'source', 'sorting'] },
  },
  'GET /v1/events/names/': {
    request: () => ({ path: '/v1/events/names/' }),
    stranger: 'own',
    list: { params: ['query', 'customer_id'] },
  },
  'GET /v1/events/:id': { request: ({ victim }) => ({ path: `/v1/events/${victim.eventId}` }) },

  // Customer meters
  'GET /v1/customer-meters': {
    request: () => ({ path: '/v1/customer-meters' }),
    stranger: 'own',
    list: { params: ['customer_id', 'external_customer_id', 'meter_id', 'sorting'] },
  },
  'GET /v1/customer-meters/:id': {
    request: ({ victim }) => ({ path: `/v1/customer-meters/${victim.customerMeterId}` }),
  },

  // Checkout links
  'GET /v1/checkout-links': {
    request: () => ({ path: '/v1/checkout-links' }),
    stranger: 'own',
    list: { params: ['product_id', 'sorting'] },
  },
  'POST /v1/checkout-links': {
    request: ({ victim }) => ({
      path: '/v1/checkout-links',
      body: { payment_processor: 'stripe', products: [victim.productId] },
    }),
    stranger: 'refused',
    refusedAt: ['products'],
  },
  'GET /v1/checkout-links/:id': {
    request: ({ victim }) => ({ path: `/v1/checkout-links/${victim.checkoutLink.id}` }),
  },
  'PATCH /v1/checkout-links/:id': {
    request: ({ victim }) => ({
      path: `/v1/checkout-links/${victim.checkoutLink.id}`,
      body: { label: 'Hijacked' },
    }),
  },
  'DELETE /v1/checkout-links/:id': {
    request: ({ victim }) => ({ path: `/v1/checkout-links/${victim.checkoutLink.id}` }),
  },
  'GET /v1/checkout-links/:client_secret/redirect': {
    access: { anonymous: 'checkout links are shared publicly: the client secret opens a checkout' },
    request: ({ victim }) => ({ path: `/v1/checkout-links/${victim.checkoutLink.id}/redirect` }),
  },

  // Checkouts
  'GET /v1/checkouts/': {
    request: () => ({ path: '/v1/checkouts/' }),
    stranger: 'own',
    list: { params: ['query', 'product_id', 'customer_id', 'status', 'sorting'] },
  },
  'GET /v1/checkouts': {
    request: () => ({ path: '/v1/checkouts' }),
    stranger: 'own',
    list: { params: ['customer_id', 'status'] },
  },
  'POST /v1/checkouts/': {
    request: ({ victim }) => ({ path: '/v1/checkouts/', body: { products: [victim.productId] } }),
    stranger: 'refused',
    refusedAt: ['products'],
  },
  'POST /v1/checkouts': {
    // The attacker's product, bought as the victim's customer or with the victim's discount.
    request: ({ victim, attacker }) => [
      {
        path: '/v1/checkouts',
        body: { products: [attacker.productId], customer_id: victim.buyer.id },
      },
      {
        path: '/v1/checkouts',
        body: { products: [attacker.productId], discount_id: victim.discountId },
      },
      {
        path: '/v1/checkouts',
        body: { products: [attacker.productId], subscription_id: victim.subscriptionId },
      },
    ],
    stranger: 'refused',
    refusedAt: ['customer_id', 'discount_id', 'subscription_id'],
  },
  'GET /v1/checkouts/:id': {
    request: ({ victim }) => ({ path: `/v1/checkouts/${victim.openCheckout.id}` }),
  },
  'PATCH /v1/checkouts/:id': {
    request: ({ victim }) => ({
      path: `/v1/checkouts/${victim.openCheckout.id}`,
      body: { customer_name: 'Hijacked' },
    }),
  },
  'GET /v1/checkouts/client/:client_secret': {
    access: { anonymous: 'the buyer’s checkout page: the client secret is the credential' },
    request: ({ victim }) => ({ path: `/v1/checkouts/client/${victim.openCheckout.id}` }),
  },
  'PATCH /v1/checkouts/client/:client_secret': {
    access: { anonymous: 'the buyer’s checkout page: the client secret is the credential' },
    request: ({ victim }) => ({
      path: `/v1/checkouts/client/${victim.openCheckout.id}`,
      body: { customer_name: 'Hijacked' },
    }),
  },
  'POST /v1/checkouts/client/:client_secret/confirm': {
    access: { anonymous: 'the buyer’s checkout page: the client secret is the credential' },
    request: ({ victim }) => ({
      path: `/v1/checkouts/client/${victim.openCheckout.id}/confirm`,
      body: { customer_email: victim.buyer.email, confirmation_token_id: 'pm_card_chargeDeclined' },
    }),
  },
  'POST /v1/checkouts/client/:client_secret/authentication': {
    access: { anonymous: 'the buyer’s checkout page: the client secret is the credential' },
    request: ({ victim }) => ({
      path: `/v1/checkouts/client/${victim.openCheckout.id}/authentication`,
    }),
  },

  // Orders
  'GET /v1/orders': {
    request: () => ({ path: '/v1/orders' }),
    stranger: 'own',
    list: {
      params: [
        'product_id',
        'customer_id',
        'checkout_id',
        'discount_id',
        'product_billing_type',
        'sorting',
      ],
    },
  },
  'GET /v1/orders/export': {
    request: () => ({ path: '/v1/orders/export?start_date=2020-01-01&end_date=2099-12-31' }),
    stranger: 'own',
    list: { params: ['start_date', 'end_date'] },
  },
  'GET /v1/orders/:id': { request: ({ victim }) => ({ path: `/v1/orders/${victim.orderId}` }) },
  'PATCH /v1/orders/:id': {
    request: ({ victim }) => ({
      path: `/v1/orders/${victim.orderId}`,
      body: { billing_name: 'Hijacked', billing_address: null },
    }),
  },
  'POST /v1/orders/:id/invoice': {
    request: ({ victim }) => ({ path: `/v1/orders/${victim.orderId}/invoice` }),
  },
  'GET /v1/orders/:id/invoice': {
    request: ({ victim }) => ({ path: `/v1/orders/${victim.orderId}/invoice` }),
  },
  'GET /v1/orders/:id/invoice/document': {
    access: { anonymous: 'invoice links are mailed: the signature is the credential' },
    request: ({ victim }) => ({
      path: `/v1/orders/${victim.orderId}/invoice/document?signature=forged`,
    }),
    stranger: 'refused',
  },

  // Refunds
  'GET /v1/refunds': {
    request: () => ({ path: '/v1/refunds' }),
    stranger: 'own',
    list: { params: ['id', 'order_id', 'subscription_id', 'customer_id', 'succeeded', 'sorting'] },
  },
  'POST /v1/refunds': {
    request: ({ victim }) => ({
      path: '/v1/refunds',
      body: { order_id: victim.orderId, reason: 'customer_request', amount: 100 },
    }),
    stranger: 'refused',
    refusedAt: ['order_id'],
  },
  'GET /v1/refunds/:id': { request: ({ victim }) => ({ path: `/v1/refunds/${victim.refundId}` }) },
  'GET /v1/refunds/:id/credit-note': {
    request: ({ victim }) => ({ path: `/v1/refunds/${victim.refundId}/credit-note` }),
  },
  'GET /v1/refunds/:id/credit-note/document': {
    access: { anonymous: 'credit note links are handed out signed: the token is the credential' },
    request: ({ victim }) => ({
      path: `/v1/refunds/${victim.refundId}/credit-note/document?token=forged`,
    }),
    stranger: 'refused',
  },

  // Subscriptions
  'GET /v1/subscriptions': {
    request: () => ({ path: '/v1/subscriptions' }),
    stranger: 'own',
    list: {
      params: [
        'organization_id',
        'product_id',
        'customer_id',
        'external_customer_id',
        'discount_id',
        'active',
        'status',
        'sorting',
      ],
    },
  },
  'GET /v1/subscriptions/export': {
    request: () => ({ path: '/v1/subscriptions/export' }),
    stranger: 'own',
  },
  'GET /v1/subscriptions/failed-renewals': {
    request: () => ({ path: '/v1/subscriptions/failed-renewals' }),
    stranger: 'own',
    list: { params: ['status', 'sorting'] },
  },
  'GET /v1/subscriptions/:id': {
    request: ({ victim }) => ({ path: `/v1/subscriptions/${victim.subscriptionId}` }),
  },
  'PATCH /v1/subscriptions/:id': {
    request: ({ victim }) => ({
      path: `/v1/subscriptions/${victim.subscriptionId}`,
      body: { cancel_at_period_end: true },
    }),
  },
  'DELETE /v1/subscriptions/:id': {
    request: ({ victim }) => ({ path: `/v1/subscriptions/${victim.subscriptionId}` }),
  },
  'GET /v1/subscriptions/recovered-renewals': {
    request: () => ({ path: '/v1/subscriptions/recovered-renewals' }),
    stranger: 'own',
    list: { params: ['recovered_by'] },
  },
  'POST /v1/subscriptions/:id/update-card-link': {
    request: ({ victim }) => ({
      path: `/v1/subscriptions/${victim.subscriptionId}/update-card-link`,
    }),
  },
  'POST /v1/subscriptions/:id/dunning/:action': {
    request: ({ victim }) => ({
      path: `/v1/subscriptions/${victim.subscriptionId}/dunning/cancel`,
    }),
  },
  'GET /v1/subscriptions/:id/workflow': {
    request: ({ victim }) => ({ path: `/v1/subscriptions/${victim.subscriptionId}/workflow` }),
  },

  // Test clocks
  'GET /v1/test-clocks': {
    request: () => ({ path: '/v1/test-clocks' }),
    stranger: 'own',
    list: { params: ['sorting'] },
  },
  'POST /v1/test-clocks': {
    // Nothing of another organization can be named: a stranger makes its own clock.
    request: () => ({ path: '/v1/test-clocks', body: { name: 'own clock' } }),
    stranger: 'own',
  },
  'GET /v1/test-clocks/:id': {
    request: ({ victim }) => ({ path: `/v1/test-clocks/${victim.testClockId}` }),
  },
  'DELETE /v1/test-clocks/:id': {
    request: ({ victim }) => ({ path: `/v1/test-clocks/${victim.testClockId}` }),
  },
  'POST /v1/test-clocks/:id/advance': {
    request: ({ victim }) => ({
      path: `/v1/test-clocks/${victim.testClockId}/advance`,
      body: { frozen_time: later },
    }),
  },

  // Payments
  'GET /v1/payments': {
    request: () => ({ path: '/v1/payments' }),
    stranger: 'own',
    list: { params: ['checkout_id', 'order_id', 'status', 'sorting'] },
  },
  'GET /v1/payments/:id': {
    request: ({ victim }) => ({ path: `/v1/payments/${victim.paymentId}` }),
  },
  'POST /v1/integrations/stripe/webhook': {
    access: { anonymous: 'Stripe calls it: the Stripe-Signature header is the credential' },
    request: ({ victim }) => ({
      path: '/v1/integrations/stripe/webhook',
      body: {
        id: 'evt_forged',
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_forged', metadata: { checkout_id: victim.openCheckout.id } } },
      },
    }),
    stranger: 'refused',
  },

  // Benefits and grants
  'GET /v1/benefits': {
    request: () => ({ path: '/v1/benefits' }),
    stranger: 'own',
    list: { params: ['query', 'type', 'sorting'] },
  },
  'POST /v1/benefits': {
    request: ({ victim }) => ({
      path: '/v1/benefits',
      body: {
        organization_id: victim.organizationId,
        type: 'custom',
        description: 'Planted',
        properties: { note: null },
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/benefits/:id': {
    request: ({ victim }) => ({ path: `/v1/benefits/${victim.licenseBenefitId}` }),
  },
  'PATCH /v1/benefits/:id': {
    request: ({ victim }) => ({
      path: `/v1/benefits/${victim.licenseBenefitId}`,
      body: { type: 'license_keys', description: 'Hijacked' },
    }),
  },
  'DELETE /v1/benefits/:id': {
    request: ({ victim }) => ({ path: `/v1/benefits/${victim.downloadableBenefitId}` }),
  },
  'GET /v1/benefits/:id/grants': {
    request: ({ victim }) => ({ path: `/v1/benefits/${victim.licenseBenefitId}/grants` }),
    list: {
      params: ['customer_id', 'is_granted', 'sorting'],
      path: ({ attacker }) => `/v1/benefits/${attacker.benefitId}/grants`,
    },
  },
  'GET /v1/benefit-grants': {
    request: () => ({ path: '/v1/benefit-grants' }),
    stranger: 'own',
    list: { params: ['customer_id', 'is_granted', 'sorting'] },
  },

  // Benefit connections (the dashboard's "Connect a Discord server" / "Connect GitHub"): a
  // start is about the caller's own organization; a callback's state is bound to the session
  // and organization that started it, a guild token to the organization it was issued to.
  'POST /v1/benefit-connections/discord': {
    request: () => ({ path: '/v1/benefit-connections/discord', body: {} }),
    stranger: 'own',
  },
  'POST /v1/benefit-connections/discord/callback': {
    request: ({ victim }) => ({
      path: '/v1/benefit-connections/discord/callback',
      body: {
        state: `${victim.organizationId}.forged`,
        code: 'code',
        guild_id: '81384788765712384',
      },
    }),
    stranger: 'refused',
    refusedAt: ['state'],
  },
  'POST /v1/benefit-connections/discord/roles': {
    request: ({ victim }) => ({
      path: '/v1/benefit-connections/discord/roles',
      body: { guild_token: `81384788765712384.${victim.organizationId}` },
    }),
    stranger: 'refused',
    refusedAt: ['guild_token'],
  },
  'POST /v1/benefit-connections/github': {
    request: () => ({ path: '/v1/benefit-connections/github', body: {} }),
    stranger: 'own',
  },
  'POST /v1/benefit-connections/github/callback': {
    request: ({ victim }) => ({
      path: '/v1/benefit-connections/github/callback',
      body: { state: `${victim.organizationId}.forged`, installation_id: '12345678' },
    }),
    stranger: 'refused',
    refusedAt: ['state'],
  },

  // License keys (the seller's API)
  'GET /v1/license-keys': {
    request: () => ({ path: '/v1/license-keys' }),
    stranger: 'own',
    list: { params: ['benefit_id', 'customer_id', 'organization_id'] },
  },
  'POST /v1/license-keys/validate': {
    request: ({ victim }) => [
      {
        path: '/v1/license-keys/validate',
        body: { key: victim.licenseKey.key, organization_id: victim.organizationId },
      },
    ],
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'POST /v1/license-keys/activate': {
    request: ({ victim }) => ({
      path: '/v1/license-keys/activate',
      body: { key: victim.licenseKey.key, organization_id: victim.organizationId, label: 'stolen' },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'POST /v1/license-keys/deactivate': {
    request: ({ victim }) => ({
      path: '/v1/license-keys/deactivate',
      body: {
        key: victim.licenseKey.key,
        organization_id: victim.organizationId,
        activation_id: victim.licenseKey.activationId,
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/license-keys/:id': {
    request: ({ victim }) => ({ path: `/v1/license-keys/${victim.licenseKey.id}` }),
  },
  'PATCH /v1/license-keys/:id': {
    request: ({ victim }) => ({
      path: `/v1/license-keys/${victim.licenseKey.id}`,
      body: { status: 'revoked' },
    }),
  },
  'GET /v1/license-keys/:id/activations/:activation_id': {
    request: ({ victim }) => ({
      path: `/v1/license-keys/${victim.licenseKey.id}/activations/${victim.licenseKey.activationId}`,
    }),
  },

  // Custom fields
  'GET /v1/custom-fields': {
    request: () => ({ path: '/v1/custom-fields' }),
    stranger: 'own',
    list: { params: ['query', 'type', 'sorting'] },
  },
  'POST /v1/custom-fields': {
    request: ({ victim }) => ({
      path: '/v1/custom-fields',
      body: {
        organization_id: victim.organizationId,
        type: 'text',
        slug: 'planted',
        name: 'Planted',
        properties: {},
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/custom-fields/:id': {
    request: ({ victim }) => ({ path: `/v1/custom-fields/${victim.customFieldId}` }),
  },
  'PATCH /v1/custom-fields/:id': {
    request: ({ victim }) => ({
      path: `/v1/custom-fields/${victim.customFieldId}`,
      body: { type: 'text', name: 'Hijacked' },
    }),
  },
  'DELETE /v1/custom-fields/:id': {
    request: ({ victim }) => ({ path: `/v1/custom-fields/${victim.customFieldId}` }),
  },

  // Tax rates (Tollgate's own)
  'GET /v1/tax-rates': {
    request: () => ({ path: '/v1/tax-rates' }),
    stranger: 'own',
    list: { params: ['country', 'sorting', 'organization_id'] },
  },
  'POST /v1/tax-rates': {
    request: ({ victim }) => ({
      path: '/v1/tax-rates',
      body: {
        organization_id: victim.organizationId,
        country: 'FR',
        rate_bps: 2000,
        display_name: 'VAT FR',
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/tax-rates/:id': {
    request: ({ victim }) => ({ path: `/v1/tax-rates/${victim.taxRateId}` }),
  },
  'PATCH /v1/tax-rates/:id': {
    request: ({ victim }) => ({
      path: `/v1/tax-rates/${victim.taxRateId}`,
      body: { rate_bps: 0 },
    }),
  },
  'DELETE /v1/tax-rates/:id': {
    request: ({ victim }) => ({ path: `/v1/tax-rates/${victim.taxRateId}` }),
  },
  'GET /v1/tax-report': {
    request: () => ({ path: '/v1/tax-report?start_date=2020-01-01&end_date=2099-12-31' }),
    stranger: 'own',
    list: { params: ['start_date', 'end_date', 'currency', 'format'] },
  },

  // Discounts
  'GET /v1/discounts': {
    request: () => ({ path: '/v1/discounts' }),
    stranger: 'own',
    list: { params: ['query', 'sorting'] },
  },
  'POST /v1/discounts': {
    request: ({ victim }) => ({
      path: '/v1/discounts',
      body: {
        name: 'Planted',
        type: 'percentage',
        basis_points: 10_000,
        duration: 'once',
        products: [victim.productId],
      },
    }),
    stranger: 'refused',
    refusedAt: ['products'],
  },
  'GET /v1/discounts/:id': {
    request: ({ victim }) => ({ path: `/v1/discounts/${victim.discountId}` }),
  },
  'PATCH /v1/discounts/:id': {
    request: ({ victim }) => ({
      path: `/v1/discounts/${victim.discountId}`,
      body: { name: 'Hijacked' },
    }),
  },
  'DELETE /v1/discounts/:id': {
    request: ({ victim }) => ({ path: `/v1/discounts/${victim.discountId}` }),
  },

  // Webhooks
  'GET /v1/webhooks/endpoints': {
    request: () => ({ path: '/v1/webhooks/endpoints' }),
    stranger: 'own',
    list: { params: ['organization_id'] },
  },
  'POST /v1/webhooks/endpoints': {
    request: ({ victim }) => ({
      path: '/v1/webhooks/endpoints',
      body: {
        organization_id: victim.organizationId,
        url: 'https://attacker.example/hooks',
        format: 'raw',
        events: ['order.paid'],
      },
    }),
    stranger: 'refused',
    refusedAt: ['organization_id'],
  },
  'GET /v1/webhooks/endpoints/:id': {
    request: ({ victim }) => ({ path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}` }),
  },
  'PATCH /v1/webhooks/endpoints/:id': {
    request: ({ victim }) => ({
      path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}`,
      body: { url: 'https://attacker.example/hooks' },
    }),
  },
  'DELETE /v1/webhooks/endpoints/:id': {
    request: ({ victim }) => ({ path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}` }),
  },
  'PATCH /v1/webhooks/endpoints/:id/secret': {
    request: ({ victim }) => ({
      path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}/secret`,
    }),
  },
  'POST /v1/webhooks/endpoints/:id/replay': {
    request: ({ victim }) => ({
      path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}/replay`,
      body: { start_timestamp: '2020-01-01T00:00:00Z', end_timestamp: year },
    }),
  },
  'POST /v1/webhooks/endpoints/:id/test': {
    request: ({ victim }) => ({ path: `/v1/webhooks/endpoints/${victim.webhookEndpointId}/test` }),
  },
  'GET /v1/webhooks/deliveries': {
    request: () => ({ path: '/v1/webhooks/deliveries' }),
    stranger: 'own',
    list: { params: ['endpoint_id', 'start_timestamp', 'end_timestamp'] },
  },
  'POST /v1/webhooks/events/:id/redeliver': {
    request: ({ victim }) => ({ path: `/v1/webhooks/events/${victim.webhookEventId}/redeliver` }),
  },

  // Metrics
  'GET /v1/metrics': {
    request: () => ({
      path: '/v1/metrics?start_date=2025-01-01&end_date=2025-12-31&interval=month',
    }),
    stranger: 'own',
    list: {
      params: [
        'start_date',
        'end_date',
        'interval',
        'timezone',
        'organization_id',
        'product_id',
        'customer_id',
        'billing_type',
      ],
      path: () => '/v1/metrics?start_date=2025-01-01&end_date=2025-12-31&interval=month',
    },
  },
  'GET /v1/metrics/limits': { request: () => ({ path: '/v1/metrics/limits' }), stranger: 'own' },

  // Workflows (the dashboard's panels)
  'GET /v1/workflows': {
    access: { scope: 'subscriptions:read', why: 'the scope of the listed kind: type=subscription' },
    request: () => ({ path: '/v1/workflows?type=subscription' }),
    stranger: 'own',
    list: { params: ['type', 'status'], path: () => '/v1/workflows?type=subscription' },
  },
  'GET /v1/workflows/:kind/:entityId': {
    access: { scope: 'subscriptions:read', why: 'the scope of the entity’s kind: subscription' },
    request: ({ victim }) => ({ path: `/v1/workflows/subscription/${victim.subscriptionId}` }),
  },
};
