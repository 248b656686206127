import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Member, Organization, OutboxEvent } from '../../db/entities/index.ts';
import { dashboardOrigin, type SignedInPerson, signedInPerson } from '../access-tokens/testing.ts';
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

describe('creating an organization (POST /v1/organizations)', () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  /** The SDK without a token, sending a person's dashboard session cookie from the dashboard. */
  const asPerson = (person: SignedInPerson) => ({
    headers: { cookie: person.cookies.header(), origin: dashboardOrigin(api) },
  });
  const organizationsNamed = (name: string) => api.orm.em.fork().count(Organization, { name });

  it('a signed-in person creates one with Polar’s shape and settings, and owns it', async () => {
    const person = await signedInPerson(api);
    const slug = `studio-${randomUUID().slice(0, 8)}`;
    const created = await polarClient(api.url).organizations.create(
      {
        name: 'Studio',
        slug,
        website: 'https://studio.example.com',
        socials: [{ platform: 'github', url: 'https://github.com/studio' }],
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          allowCustomerUpdates: false,
          prorationBehavior: 'invoice',
        },
      },
      asPerson(person),
    );
    assert.equal(created.slug, slug);
    assert.equal(created.name, 'Studio');
    assert.equal(created.status, 'created');
    assert.equal(created.website, 'https://studio.example.com');
    assert.equal(created.socials[0]?.platform, 'github');
    assert.equal(created.subscriptionSettings.prorationBehavior, 'invoice');
    assert.equal(created.subscriptionSettings.allowMultipleSubscriptions, true);

    const membership = await api.orm.em
      .fork()
      .findOneOrFail(Member, { organization: created.id, user: person.userId });
    assert.equal(membership.role, 'owner');
    // Better Auth's client sees it among the person's organizations, and the session acts for it.
    const { data: listed } = await person.client.organization.list();
    assert.deepEqual(
      listed?.map((organization) => organization.id),
      [created.id],
    );
    const { error } = await person.client.organization.setActive({ organizationId: created.id });
    assert.equal(error, null);
    const read = await person.call('GET', `/v1/organizations/${created.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.website, 'https://studio.example.com');
  });

  it('refuses a taken slug as Better Auth does, and a slug that is no URL segment', async () => {
    const person = await signedInPerson(api);
    const polar = polarClient(api.url);
    const taken = await api.orm.em.fork().findOneOrFail(Organization, seller.organizationId);
    await assert.rejects(
      polar.organizations.create({ name: 'Copycat', slug: taken.slug }, asPerson(person)),
      (error: unknown) => {
        assert.ok(error instanceof HTTPValidationError, String(error));
        assert.deepEqual(
          error.detail?.map(({ loc, msg }) => [loc, msg]),
          [[['body', 'slug'], 'Organization already exists']],
        );
        return true;
      },
    );
    // Better Auth's own create says the same of the same slug.
    const viaAuth = await person.client.organization.create({ name: 'Copycat', slug: taken.slug });
    assert.equal(viaAuth.error?.message, 'Organization already exists');

    for (const slug of ['Has Spaces', 'UPPER', 'a/b', '-edge', 'ab', 'double--hyphen']) {
      await assert.rejects(
        polar.organizations.create({ name: 'Copycat', slug }, asPerson(person)),
        (error: unknown) => {
          assert.ok(error instanceof HTTPValidationError, `${slug}: ${String(error)}`);
          assert.deepEqual(error.detail?.[0]?.loc, ['body', 'slug'], slug);
          return true;
        },
      );
    }
    assert.equal(await organizationsNamed('Copycat'), 0);
  });

  it('is never done by an organization access token, anonymously or cross-site', async () => {
    const body = { name: 'Token made', slug: `token-made-${randomUUID().slice(0, 8)}` };
    await assert.rejects(seller.polar.organizations.create(body), (error: unknown) => {
      assert.ok(error instanceof SDKError, String(error));
      assert.equal(error.statusCode, 403);
      assert.equal(JSON.parse(error.body).error, 'NotPermitted');
      return true;
    });
    const anonymous = await callV1(api, null, 'POST', '/v1/organizations/', body);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error, 'Unauthorized');
    const madeUp = await callV1(api, 'polar_cst_made-up', 'POST', '/v1/organizations/', body);
    assert.equal(madeUp.status, 401);
    assert.equal(madeUp.body.error, 'invalid_token');
    // A signed-in person's cookie sent by another site's page (CSRF) is refused.
    const person = await signedInPerson(api);
    const forged = await fetch(`${api.url}/v1/organizations/`, {
      method: 'POST',
      headers: {
        cookie: person.cookies.header(),
        origin: 'https://evil.example.com',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { error: string }).error, 'NotPermitted');
    assert.equal(await organizationsNamed('Token made'), 0);
  });

  it('keeps to the organization limit of a person, as Better Auth’s create does', async () => {
    const config = loadRuntimeConfig();
    const limited = await startCommerceApi({
      ...config,
      auth: { ...config.auth, organizationLimit: 1 },
    });
    try {
      const person = await signedInPerson(limited);
      const polar = polarClient(limited.url);
      const headers = {
        headers: { cookie: person.cookies.header(), origin: dashboardOrigin(limited) },
      };
      const tag = randomUUID().slice(0, 8);
      await polar.organizations.create({ name: 'First', slug: `first-${tag}` }, headers);
      await assert.rejects(
        polar.organizations.create({ name: 'Second', slug: `second-${tag}` }, headers),
        (error: unknown) => {
          assert.ok(error instanceof SDKError, String(error));
          assert.equal(error.statusCode, 403);
          assert.deepEqual(JSON.parse(error.body), {
            error: 'NotPermitted',
            detail: 'You have reached the maximum number of organizations',
          });
          return true;
        },
      );
    } finally {
      await limited.close();
    }
  });
});
