import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Organization } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import {
  callV1,
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';

describe('public storefront (/v1/customer-portal/organizations/{slug})', () => {
  let api: TestApi;
  let seller: Seller;
  let slug: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    slug = (await api.orm.em.fork().findOneOrFail(Organization, seller.organizationId)).slug;
  });
  after(() => api.close());

  it('shows anyone the organization and the products it offers, as buyers see them', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Priority support',
      properties: { note: 'Mail the founders at founders@example.com' },
    });
    const plan = await seller.polar.products.create({
      name: 'Pro',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
      metadata: { internal_code: 'PRO-7' },
    });
    await seller.polar.products.updateBenefits({
      id: plan.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const retired = await seller.polar.products.create({
      name: 'Retired',
      prices: [{ amountType: 'fixed', priceAmount: 500 }],
    });
    await seller.polar.products.update({ id: retired.id, productUpdate: { isArchived: true } });
    const other = await createSeller(api);
    await other.polar.products.create({
      name: 'Elsewhere',
      prices: [{ amountType: 'fixed', priceAmount: 100 }],
    });

    // No credentials: the storefront is public.
    const anonymous = polarClient(api.url);
    const storefront = await anonymous.customerPortal.organizations.get({ slug });
    assert.equal(storefront.organization.id, seller.organizationId);
    assert.equal(storefront.organization.slug, slug);
    assert.deepEqual(
      storefront.products.map((product) => product.name),
      ['Pro', 'Ebook'],
    );
    const [pro] = storefront.products;
    assert.equal(pro?.isRecurring, true);
    assert.deepEqual(
      pro?.prices.map((price) => price.id),
      plan.prices.map((price) => price.id),
    );
    assert.deepEqual(
      pro?.benefits.map((found) => [found.id, found.description]),
      [[benefit.id, 'Priority support']],
    );
    assert.equal(storefront.products[1]?.id, ebook.id);

    // The seller's own fields are not on the wire: metadata, custom fields, benefit settings.
    const raw = await callV1(api, null, 'GET', `/v1/customer-portal/organizations/${slug}`);
    assert.equal(raw.status, 200);
    const [rawPro] = raw.body.products;
    assert.ok(!('metadata' in rawPro));
    assert.ok(!('attached_custom_fields' in rawPro));
    assert.ok(!('properties' in rawPro.benefits[0]));
    assert.ok(!JSON.stringify(raw.body).includes('founders@example.com'));
    assert.ok(!JSON.stringify(raw.body).includes('PRO-7'));
  });

  it('shows the seller’s next change at once: a new product, new settings', async () => {
    const anonymous = polarClient(api.url);
    const before = await anonymous.customerPortal.organizations.get({ slug });
    await seller.polar.products.create({
      name: 'Workshop',
      prices: [{ amountType: 'fixed', priceAmount: 4900 }],
    });
    const added = await anonymous.customerPortal.organizations.get({ slug });
    assert.deepEqual(
      added.products.map((product) => product.name),
      [...before.products.map((product) => product.name), 'Workshop'],
    );
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { name: 'Renamed Press' },
    });
    // The database announces the settings change; it reaches this process moments after commit.
    const renamed = await eventually(
      () => anonymous.customerPortal.organizations.get({ slug }),
      (storefront) => storefront.organization.name === 'Renamed Press',
      { timeoutMs: 5000, what: 'the renamed organization on its storefront' },
    );
    assert.equal(renamed.products.length, added.products.length);
  });

  it('answers an unknown slug, or an organization’s id, 404', async () => {
    const anonymous = polarClient(api.url);
    await assert.rejects(
      anonymous.customerPortal.organizations.get({ slug: `${slug}-nope` }),
      ResourceNotFound,
    );
    await assert.rejects(
      anonymous.customerPortal.organizations.get({ slug: seller.organizationId }),
      ResourceNotFound,
    );
    const hostile = await callV1(
      api,
      null,
      'GET',
      `/v1/customer-portal/organizations/${encodeURIComponent("' OR '1'='1")}`,
    );
    assert.equal(hostile.status, 404);
  });
});
