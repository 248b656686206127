import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { OutboxEvent } from '../../db/entities/index.ts';
import {
  callV1,
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';

describe('seller organization (/v1/organizations)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  it('gets its own organization with Polar defaults', async () => {
    const organization = await seller.polar.organizations.get({ id: seller.organizationId });
    assert.equal(organization.id, seller.organizationId);
    assert.equal(organization.featureSettings?.issueFundingEnabled, false);
    assert.deepEqual(organization.socials, []);
    assert.equal(organization.detailsSubmittedAt, null);
    assert.equal(organization.subscriptionSettings.prorationBehavior, 'prorate');
  });

  it('lists exactly the organization of the token', async () => {
    const page = await seller.polar.organizations.list({});
    assert.deepEqual(
      page.result.items.map((organization) => organization.id),
      [seller.organizationId],
    );
    assert.equal(page.result.pagination.totalCount, 1);
  });

  it('takes Polar sorting criteria for the list and refuses unknown ones', async () => {
    const sorted = await seller.polar.organizations.list({ sorting: ['-name', 'slug'] });
    assert.equal(sorted.result.items.length, 1);
    const refused = await callV1(api, seller.token, 'GET', '/v1/organizations/?sorting=size');
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['query', 'sorting']);
  });

  it('updates settings and socials, and records organization.updated', async () => {
    const updated = await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: {
        website: 'https://shop.example.com',
        socials: [{ platform: 'github', url: 'https://github.com/example' }],
        featureSettings: { issueFundingEnabled: true },
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          allowCustomerUpdates: false,
          prorationBehavior: 'invoice',
        },
      },
    });
    assert.equal(updated.website, 'https://shop.example.com');
    assert.equal(updated.socials[0]?.platform, 'github');
    assert.equal(updated.featureSettings?.issueFundingEnabled, true);
    assert.equal(updated.subscriptionSettings.prorationBehavior, 'invoice');
    assert.ok(updated.modifiedAt instanceof Date);
    const events = await api.orm.em
      .fork()
      .find(OutboxEvent, { organization: seller.organizationId, type: 'organization.updated' });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.website, 'https://shop.example.com');
  });

  it('refuses an unknown social platform with 422 at its path, and changes nothing', async () => {
    const path = `/v1/organizations/${seller.organizationId}`;
    const refused = await callV1(api, seller.token, 'PATCH', path, {
      website: 'https://changed.example.com',
      socials: [{ platform: 'myspace', url: 'https://x.test' }],
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error, 'RequestValidationError');
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'socials', 0, 'platform']);
    const organization = await seller.polar.organizations.get({ id: seller.organizationId });
    assert.equal(organization.website, 'https://shop.example.com');
  });

  it('never reads or changes another organization: its id is simply not found', async () => {
    await assert.rejects(
      seller.polar.organizations.get({ id: other.organizationId }),
      ResourceNotFound,
    );
    await assert.rejects(
      seller.polar.organizations.update({
        id: other.organizationId,
        organizationUpdate: { name: 'Taken over' },
      }),
      ResourceNotFound,
    );
    const untouched = await other.polar.organizations.get({ id: other.organizationId });
    assert.notEqual(untouched.name, 'Taken over');
  });

  it('answers a malformed id with 422 at path.id, and an unknown one with 404', async () => {
    const malformed = await callV1(api, seller.token, 'GET', '/v1/organizations/not-a-uuid');
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['path', 'id']);
    await assert.rejects(seller.polar.organizations.get({ id: randomUUID() }), ResourceNotFound);
  });

  it('answers 401 without a token and invalid_token for a dead one', async () => {
    const anonymous = await fetch(`${api.url}/v1/organizations/`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.deepEqual(await anonymous.json(), { error: 'Unauthorized', detail: 'Unauthorized' });
    await assert.rejects(
      polarClient(api.url, 'polar_oat_not-a-real-token').organizations.list({}),
      (error) =>
        error instanceof SDKError && error.statusCode === 401 && /invalid_token/.test(error.body),
    );
  });

  it('accepts collection paths with and without the trailing slash, without redirecting', async () => {
    for (const path of ['/v1/organizations', '/v1/organizations/']) {
      const response = await fetch(`${api.url}${path}`, {
        headers: { authorization: `Bearer ${seller.token}` },
        redirect: 'manual',
      });
      assert.equal(response.status, 200, path);
    }
  });
});
