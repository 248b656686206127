import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import {
  Benefit,
  BenefitGrant,
  Customer,
  CustomerOAuthAccount,
  Order,
  OrderItem,
  OutboxEvent,
} from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { customerOrderWireSchema } from './schemas.ts';

describe('customer portal (/v1/customer-portal)', () => {
  let api: TestApi;
  let seller: Seller;
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
  });
  after(() => api.close());

  it('shows the session’s customer its profile with linked accounts', async () => {
    const { customer, token } = await customerWithSession();
    const em = api.orm.em.fork();
    em.create(CustomerOAuthAccount, {
      customer: customer.id,
      platform: 'github',
      accountId: '583231',
      accountUsername: 'octocat',
    });
    await em.flush();
    const me = await seller.polar.customerPortal.customers.get({ customerSession: token });
    assert.equal(me.id, customer.id);
    assert.equal(me.email, customer.email);
    assert.equal(me.billingName, 'Grace');
    assert.deepEqual(me.oauthAccounts, {
      github: { accountId: '583231', accountUsername: 'octocat' },
    });
  });

  it('lists and gets only the customer’s own benefit grants, without the seller’s secrets', async () => {
    const { customer, token } = await customerWithSession();
    const stranger = await customerWithSession();
    const em = api.orm.em.fork();
    const organization = seller.organizationId;
    const license = em.create(Benefit, {
      organization,
      type: 'license_keys',
      description: 'App license',
      properties: { prefix: 'APP', expires: null, activations: null, limit_usage: null },
    });
    const discord = em.create(Benefit, {
      organization,
      type: 'discord',
      description: 'Community',
      properties: { guild_id: '42', role_id: '7', kick_member: false, guild_token: 'secret' },
    });
    const ownLicense = em.create(BenefitGrant, {
      customer: customer.id,
      benefit: license,
      grantedAt: new Date(),
      properties: { license_key_id: randomUUID(), display_key: '****-ABCDEF' },
    });
    em.create(BenefitGrant, { customer: customer.id, benefit: discord });
    const strangers = em.create(BenefitGrant, {
      customer: stranger.customer.id,
      benefit: license,
      grantedAt: new Date(),
    });
    await em.flush();

    const security = { customerSession: token };
    const page = await seller.polar.customerPortal.benefitGrants.list(security, {});
    assert.equal(page.result.pagination.totalCount, 2);
    assert.deepEqual(page.result.items.map((grant) => grant.benefit.type).sort(), [
      'discord',
      'license_keys',
    ]);
    const discordGrant = page.result.items.find((grant) => grant.benefit.type === 'discord');
    assert.deepEqual(discordGrant?.benefit.properties, { guildId: '42' });
    assert.equal(discordGrant?.isGranted, false);

    const licenses = await seller.polar.customerPortal.benefitGrants.list(security, {
      typeFilter: 'license_keys',
    });
    assert.deepEqual(
      licenses.result.items.map((grant) => grant.id),
      [ownLicense.id],
    );
    const got = await seller.polar.customerPortal.benefitGrants.get(security, {
      id: ownLicense.id,
    });
    assert.equal(got.customer.id, customer.id);
    assert.equal(got.benefit.organization.id, organization);
    assert.deepEqual(got.properties, {
      licenseKeyId: ownLicense.properties.license_key_id,
      displayKey: '****-ABCDEF',
    });

    const foreign = await seller.polar.customerPortal.benefitGrants
      .get(security, { id: strangers.id })
      .catch((e) => e);
    assert.ok(foreign instanceof ResourceNotFound, String(foreign));
  });

  it('lists and gets only the customer’s own orders, with the product’s organization', async () => {
    const { customer, token } = await customerWithSession();
    const stranger = await customerWithSession();
    const product = await seller.polar.products.create({
      name: 'Ebook',
      metadata: { sku: 'EB-1' },
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const em = api.orm.em.fork();
    const orderOf = (customerId: string, invoiceNumber: string) => {
      const order = em.create(Order, {
        organization: seller.organizationId,
        customer: customerId,
        product: product.id,
        status: 'paid',
        billingReason: 'purchase',
        subtotalAmount: 1900,
        discountAmount: 0,
        netAmount: 1900,
        taxAmount: 0,
        totalAmount: 1900,
        currency: 'usd',
        invoiceNumber,
        metadata: { internal: 'seller only' },
      });
      em.create(OrderItem, {
        order,
        label: 'Ebook',
        amount: 1900,
        productPrice: product.prices[0]?.id,
      });
      return order;
    };
    const own = orderOf(customer.id, `P-${randomUUID().slice(0, 8)}`);
    const strangers = orderOf(stranger.customer.id, `P-${randomUUID().slice(0, 8)}`);
    await em.flush();

    const security = { customerSession: token };
    const page = await seller.polar.customerPortal.orders.list(security, {});
    assert.deepEqual(
      page.result.items.map((order) => order.id),
      [own.id],
    );
    const [listed] = page.result.items;
    assert.equal(listed?.product.organization.id, seller.organizationId);
    assert.equal(listed?.items[0]?.amount, 1900);
    const wire = await callV1(api, token, 'GET', `/v1/customer-portal/orders/${own.id}`);
    assert.equal(wire.status, 200);
    assert.equal(wire.body.metadata, undefined);
    assert.equal(wire.body.product.metadata, undefined);
    customerOrderWireSchema.parse(wire.body);

    const searched = await seller.polar.customerPortal.orders.list(security, { query: 'nothing' });
    assert.equal(searched.result.pagination.totalCount, 0);
    const foreign = await seller.polar.customerPortal.orders
      .get(security, { id: strangers.id })
      .catch((e) => e);
    assert.ok(foreign instanceof ResourceNotFound, String(foreign));
  });

  /** The first field a 422 refused, as the SDK raised it. */
  async function refusedField(call: Promise<unknown>) {
    const error = await call.then(
      () => assert.fail('expected a 422'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof HTTPValidationError, String(error));
    const [issue] = error.detail ?? [];
    return { loc: issue?.loc, msg: issue?.msg };
  }

  it('lets the customer correct its billing details, and tells the seller', async () => {
    const { customer, token } = await customerWithSession();
    const security = { customerSession: token };
    const updated = await seller.polar.customerPortal.customers.update(security, {
      billingName: 'Grace Hopper Ltd',
      billingAddress: { country: 'FR', city: 'Paris', line1: '1 rue de Rivoli' },
      taxId: 'FR 61 954 506 077',
    });
    assert.equal(updated.billingName, 'Grace Hopper Ltd');
    assert.equal(updated.billingAddress?.country, 'FR');
    assert.deepEqual(updated.taxId, ['FR61954506077', 'eu_vat']);
    assert.equal(updated.defaultPaymentMethodId, null);

    // Absent keys keep their value; a blank tax id clears it.
    const cleared = await seller.polar.customerPortal.customers.update(security, { taxId: '' });
    assert.equal(cleared.taxId, null);
    assert.equal(cleared.billingName, 'Grace Hopper Ltd');
    const seen = await seller.polar.customers.get({ id: customer.id });
    assert.equal(seen.name, 'Grace Hopper Ltd');
    assert.equal(seen.billingAddress?.city, 'Paris');
    const events = await api.orm.em
      .fork()
      .find(OutboxEvent, { organization: seller.organizationId, type: 'customer.updated' });
    assert.equal(events.filter((event) => event.data.id === customer.id).length, 2);
  });

  it('validates the tax id against the billing country and writes nothing it refuses', async () => {
    const { customer, token } = await customerWithSession();
    const security = { customerSession: token };
    const update = (...args: Parameters<typeof seller.polar.customerPortal.customers.update>) =>
      seller.polar.customerPortal.customers.update(...args);
    assert.deepEqual(await refusedField(update(security, { taxId: 'FR61954506077' })), {
      loc: ['body', 'billing_address'],
      msg: 'Country is required to validate tax ID.',
    });
    assert.deepEqual(
      await refusedField(
        update(security, {
          billingName: 'Not kept',
          billingAddress: { country: 'DE' },
          taxId: 'FR61954506077',
        }),
      ),
      { loc: ['body', 'tax_id'], msg: 'Invalid tax ID.' },
    );
    const refusals: [unknown, string[]][] = [
      [{ billing_address: { country: 'XX' } }, ['body', 'billing_address', 'country']],
      [{ billing_name: 'x'.repeat(256) }, ['body', 'billing_name']],
      [{ tax_id: ['FR61954506077', 'eu_vat'] }, ['body', 'tax_id']],
    ];
    for (const [body, loc] of refusals) {
      const answer = await callV1(api, token, 'PATCH', '/v1/customer-portal/customers/me', body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.detail[0].loc, loc);
    }

    const unchanged = await api.orm.em.fork().findOneOrFail(Customer, customer.id);
    assert.equal(unchanged.name, 'Grace');
    assert.equal(unchanged.billingAddress, null);
    assert.equal(unchanged.taxId, null);
  });

  it('refuses changes with NotPermitted when the organization does not allow customer updates', async () => {
    const strict = await createSeller(api);
    await strict.polar.organizations.update({
      id: strict.organizationId,
      organizationUpdate: {
        subscriptionSettings: {
          allowMultipleSubscriptions: false,
          allowCustomerUpdates: false,
          prorationBehavior: 'prorate',
        },
      },
    });
    const customer = await strict.polar.customers.create({ email: freshEmail(), name: 'Grace' });
    const { token } = await strict.polar.customerSessions.create({ customerId: customer.id });
    const refused = await strict.polar.customerPortal.customers
      .update({ customerSession: token }, { billingName: 'Someone else' })
      .catch((error: unknown) => error);
    // The SDK names no error for this call's 403: Polar's NotPermitted body is the answer.
    assert.ok(refused instanceof SDKError && refused.statusCode === 403, String(refused));
    assert.equal(JSON.parse(refused.body).error, 'NotPermitted');
    const me = await strict.polar.customerPortal.customers.get({ customerSession: token });
    assert.equal(me.billingName, 'Grace');
  });
});
