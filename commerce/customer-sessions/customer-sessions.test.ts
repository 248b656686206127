import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { CustomerSession } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('customer sessions (/v1/customer-sessions)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  const freshEmail = () => `buyer-${randomUUID().slice(0, 8)}@example.com`;

  /** A customer of the seller and a portal session for it, opened through the SDK. */
  async function customerWithSession() {
    const customer = await seller.polar.customers.create({ email: freshEmail(), name: 'Grace' });
    const session = await seller.polar.customerSessions.create({ customerId: customer.id });
    return { customer, token: session.token };
  }

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  it('opens a session by customer id or external id; only the token hash is stored', async () => {
    const externalId = `crm-${randomUUID()}`;
    const customer = await seller.polar.customers.create({ email: freshEmail(), externalId });
    const byId = await seller.polar.customerSessions.create({ customerId: customer.id });
    assert.match(byId.token, /^polar_cst_[A-Za-z0-9_-]{40,}$/);
    assert.equal(byId.customerId, customer.id);
    assert.equal(byId.customer.email, customer.email);
    assert.ok(byId.customerPortalUrl.endsWith(`/portal?customer_session_token=${byId.token}`));
    const minutesLeft = (byId.expiresAt.getTime() - Date.now()) / 60_000;
    assert.ok(minutesLeft > 59 && minutesLeft <= 60, `expires in ${minutesLeft} min`);
    const stored = await api.orm.em.fork().findOneOrFail(CustomerSession, { id: byId.id });
    assert.equal(stored.tokenHash, hashToken(byId.token));

    const byExternalId = await seller.polar.customerSessions.create({
      externalCustomerId: externalId,
    });
    assert.equal(byExternalId.customerId, customer.id);
    assert.notEqual(byExternalId.token, byId.token);
  });

  it('refuses an unknown customer, and another organization’s, as “Customer does not exist.”', async () => {
    const foreign = await other.polar.customers.create({ email: freshEmail() });
    for (const request of [
      { customerId: randomUUID() },
      { customerId: foreign.id },
      { externalCustomerId: 'nobody' },
    ]) {
      const refused = await seller.polar.customerSessions.create(request).catch((e) => e);
      assert.ok(refused instanceof HTTPValidationError, String(refused));
      const field = 'customerId' in request ? 'customer_id' : 'external_customer_id';
      assert.deepEqual(refused.detail?.[0]?.loc, ['body', field]);
      assert.equal(refused.detail?.[0]?.msg, 'Customer does not exist.');
    }
    const sessions = await api.orm.em.fork().count(CustomerSession, { customer: foreign.id });
    assert.equal(sessions, 0);
  });

  it('needs the customer_sessions:write scope', async () => {
    const reader = await createSeller(api, { scopes: ['customer_sessions:read'] });
    const answer = await callV1(api, reader.token, 'POST', '/v1/customer-sessions/', {
      customer_id: randomUUID(),
    });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error, 'insufficient_scope');
  });

  it('answers 401 without a session, with an unknown one, an expired one or a deleted customer’s', async () => {
    const missing = await callV1(api, null, 'GET', '/v1/customer-portal/customers/me');
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error, 'Unauthorized');

    const unknown = await callV1(api, 'polar_cst_nope', 'GET', '/v1/customer-portal/customers/me');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_token');

    // An organization token opens no portal.
    const seller401 = await callV1(api, seller.token, 'GET', '/v1/customer-portal/customers/me');
    assert.equal(seller401.status, 401);

    const { token } = await customerWithSession();
    await api.orm.em
      .fork()
      .nativeUpdate(
        CustomerSession,
        { tokenHash: hashToken(token) },
        { expiresAt: new Date(Date.now() - 1000) },
      );
    const expired = await seller.polar.customerPortal.customers
      .get({ customerSession: token })
      .catch((e) => e);
    assert.ok(expired instanceof SDKError && expired.statusCode === 401, String(expired));

    const deleted = await customerWithSession();
    await seller.polar.customers.delete({ id: deleted.customer.id });
    const gone = await callV1(api, deleted.token, 'GET', '/v1/customer-portal/customers/me');
    assert.equal(gone.status, 401);
  });
});
