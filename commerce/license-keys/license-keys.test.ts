import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { Benefit, LicenseKey } from '../../db/entities/index.ts';
import { displayLicenseKey, generateLicenseKey } from '../../domain/license-keys.ts';
import {
  callV1,
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';

const tag = () => randomBytes(5).toString('hex');

describe('license keys (/v1/license-keys, /v1/customer-portal/license-keys)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  /**
   * A key as a license_keys grant leaves it, for a fresh customer of `owner` (rules are the
   * API's; the grant itself is tested with the grant workflow).
   */
  async function seedKey(
    owner: Seller,
    terms: Partial<
      Pick<LicenseKey, 'status' | 'limitActivations' | 'limitUsage' | 'usage' | 'expiresAt'>
    > = {},
    /** A license_keys benefit of `owner` the key comes with; absent, one without activations. */
    benefitId?: string,
  ) {
    const customer = await owner.polar.customers.create({ email: `key-${tag()}@example.com` });
    const em = api.orm.em.fork();
    const benefit = benefitId
      ? em.getReference(Benefit, benefitId)
      : em.create(Benefit, {
          organization: owner.organizationId,
          type: 'license_keys',
          description: 'License key',
          properties: { prefix: 'TOOL', expires: null, activations: null, limit_usage: null },
        });
    const key = generateLicenseKey('tool');
    const row = em.create(LicenseKey, {
      organization: owner.organizationId,
      customer: customer.id,
      benefit,
      key,
      displayKey: displayLicenseKey(key),
      status: 'granted',
      ...terms,
    });
    await em.flush();
    return { id: row.id, key, customerId: customer.id, benefitId: benefit.id };
  }

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  it('lists, gets and updates the organization’s keys; other organizations see none of them', async () => {
    const seeded = await seedKey(seller, { limitUsage: 10, usage: 4 });
    const listed = await seller.polar.licenseKeys.list({ benefitId: seeded.benefitId });
    assert.deepEqual(
      listed.result.items.map((key) => [key.id, key.key, key.usage, key.customer.id]),
      [[seeded.id, seeded.key, 4, seeded.customerId]],
    );
    const got = await seller.polar.licenseKeys.get({ id: seeded.id });
    assert.deepEqual(got.activations, []);
    assert.equal(got.displayKey, `****-${seeded.key.slice(-6)}`);

    // The SDK always sends usage (0 unless set): an update resets it, as with Polar.
    const updated = await seller.polar.licenseKeys.update({
      id: seeded.id,
      licenseKeyUpdate: { limitActivations: 3, expiresAt: new Date('2030-01-01T00:00:00Z') },
    });
    assert.equal(updated.usage, 0);
    assert.equal(updated.limitActivations, 3);
    assert.equal(updated.limitUsage, 10);
    assert.equal(updated.expiresAt?.toISOString(), '2030-01-01T00:00:00.000Z');
    const disabled = await seller.polar.licenseKeys.update({
      id: seeded.id,
      licenseKeyUpdate: { status: 'disabled', usage: 2, limitUsage: null },
    });
    assert.deepEqual([disabled.status, disabled.usage, disabled.limitUsage], ['disabled', 2, null]);
    const badUsage = await callV1(api, seller.token, 'PATCH', `/v1/license-keys/${seeded.id}`, {
      usage: -1,
    });
    assert.equal(badUsage.status, 422);
    assert.deepEqual(badUsage.body.detail[0].loc, ['body', 'usage']);

    await assert.rejects(other.polar.licenseKeys.get({ id: seeded.id }), ResourceNotFound);
    await assert.rejects(
      other.polar.licenseKeys.update({ id: seeded.id, licenseKeyUpdate: { usage: 0 } }),
      ResourceNotFound,
    );
    const foreign = await other.polar.licenseKeys.list({});
    assert.deepEqual(foreign.result.items, []);
    await assert.rejects(
      other.polar.licenseKeys.validate({ key: seeded.key, organizationId: seller.organizationId }),
      ResourceNotFound,
    );
    const malformed = await callV1(api, seller.token, 'GET', '/v1/license-keys/not-a-uuid');
    assert.equal(malformed.status, 422);
  });

  it('lists one customer’s keys with customer_id (the dashboard’s customer page)', async () => {
    const wanted = await seedKey(seller);
    await seedKey(seller);
    const listed = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/license-keys/?customer_id=${wanted.customerId}`,
    );
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.items.map((key: { id: string }) => key.id),
      [wanted.id],
    );
    const foreign = await callV1(
      api,
      other.token,
      'GET',
      `/v1/license-keys/?customer_id=${wanted.customerId}`,
    );
    assert.deepEqual(foreign.body.items, []);
    const malformed = await callV1(api, seller.token, 'GET', '/v1/license-keys/?customer_id=x');
    assert.equal(malformed.status, 422);
  });

  it('lists keys of some statuses with status (the dashboard’s license keys list)', async () => {
    const granted = await seedKey(seller);
    const disabled = await seedKey(seller, { status: 'disabled' }, granted.benefitId);
    const revoked = await seedKey(seller, { status: 'revoked' }, granted.benefitId);
    const idsOf = async (query: string) => {
      const listed = await callV1(
        api,
        seller.token,
        'GET',
        `/v1/license-keys/?benefit_id=${granted.benefitId}&${query}`,
      );
      assert.equal(listed.status, 200);
      return listed.body.items.map((key: { id: string }) => key.id);
    };
    assert.deepEqual(await idsOf('status=revoked'), [revoked.id]);
    assert.deepEqual(await idsOf('status=granted&status=disabled'), [granted.id, disabled.id]);
    const unknown = await callV1(api, seller.token, 'GET', '/v1/license-keys/?status=lost');
    assert.equal(unknown.status, 422);
  });

  it('validates a key: counts validations and usage, within its usage limit', async () => {
    const seeded = await seedKey(seller, { limitUsage: 5 });
    const base = { key: seeded.key, organizationId: seller.organizationId };
    const first = await seller.polar.licenseKeys.validate({ ...base, incrementUsage: 3 });
    assert.deepEqual([first.validations, first.usage], [1, 3]);
    assert.ok(first.lastValidatedAt instanceof Date);
    assert.equal(first.activation, null);
    const matching = await seller.polar.licenseKeys.validate({
      ...base,
      benefitId: seeded.benefitId,
      customerId: seeded.customerId,
    });
    assert.deepEqual([matching.validations, matching.usage], [2, 3]);

    // Three more would pass the limit of five: refused, nothing counted.
    const over = seller.polar.licenseKeys.validate({ ...base, incrementUsage: 3 });
    await assert.rejects(over, (error: SDKError) => {
      assert.equal(error.statusCode, 400);
      assert.match(error.body, /only has 2 more usages/);
      return true;
    });
    const exact = await seller.polar.licenseKeys.validate({ ...base, incrementUsage: 2 });
    assert.deepEqual([exact.validations, exact.usage], [3, 5]);

    const refusals = [
      { ...base, key: `${seeded.key}X` },
      { ...base, organizationId: other.organizationId },
      { ...base, benefitId: randomUUID() },
      { ...base, customerId: randomUUID() },
      { ...base, activationId: randomUUID() },
    ];
    for (const request of refusals) {
      await assert.rejects(seller.polar.licenseKeys.validate(request), ResourceNotFound);
    }
  });

  it('refuses revoked, disabled and expired keys', async () => {
    const cases = [
      [{ status: 'revoked' as const }, 'License key is no longer active.'],
      [{ status: 'disabled' as const }, 'License key is no longer active.'],
      [{ expiresAt: new Date(Date.now() - 1000) }, 'License key has expired.'],
    ] as const;
    for (const [terms, detail] of cases) {
      const seeded = await seedKey(seller, { ...terms, limitActivations: 2 });
      const base = { key: seeded.key, organizationId: seller.organizationId };
      await assert.rejects(seller.polar.licenseKeys.validate(base), (error: ResourceNotFound) => {
        assert.ok(error instanceof ResourceNotFound);
        assert.equal(error.detail, detail);
        return true;
      });
      await assert.rejects(
        seller.polar.licenseKeys.activate({ ...base, label: 'laptop' }),
        NotPermitted,
      );
    }
  });

  it('activates up to the limit, validates activations with their conditions, deactivates', async () => {
    const seeded = await seedKey(seller, { limitActivations: 2 });
    const base = { key: seeded.key, organizationId: seller.organizationId };
    const laptop = await seller.polar.licenseKeys.activate({
      ...base,
      label: 'laptop',
      conditions: { major_version: 2 },
      meta: { hostname: 'ada-laptop' },
    });
    assert.equal(laptop.licenseKeyId, seeded.id);
    assert.equal(laptop.licenseKey.id, seeded.id);
    assert.deepEqual(laptop.meta, { hostname: 'ada-laptop' });
    const desktop = await seller.polar.licenseKeys.activate({ ...base, label: 'desktop' });
    await assert.rejects(
      seller.polar.licenseKeys.activate({ ...base, label: 'third' }),
      (error: NotPermitted) => {
        assert.ok(error instanceof NotPermitted);
        assert.match(error.detail, /activation limit already reached/);
        return true;
      },
    );

    const read = await seller.polar.licenseKeys.getActivation({
      id: seeded.id,
      activationId: laptop.id,
    });
    assert.equal(read.label, 'laptop');
    await assert.rejects(
      other.polar.licenseKeys.getActivation({ id: seeded.id, activationId: laptop.id }),
      ResourceNotFound,
    );
    const withActivations = await seller.polar.licenseKeys.get({ id: seeded.id });
    assert.deepEqual(
      withActivations.activations.map((activation) => activation.label),
      ['laptop', 'desktop'],
    );

    const validated = await seller.polar.licenseKeys.validate({
      ...base,
      activationId: laptop.id,
      conditions: { major_version: 2 },
    });
    assert.equal(validated.activation?.id, laptop.id);
    await assert.rejects(
      seller.polar.licenseKeys.validate({
        ...base,
        activationId: laptop.id,
        conditions: { major_version: 3 },
      }),
      ResourceNotFound,
    );

    await seller.polar.licenseKeys.deactivate({ ...base, activationId: desktop.id });
    await assert.rejects(
      seller.polar.licenseKeys.validate({ ...base, activationId: desktop.id }),
      ResourceNotFound,
    );
    await assert.rejects(
      seller.polar.licenseKeys.deactivate({ ...base, activationId: desktop.id }),
      ResourceNotFound,
    );
    // The slot is free again.
    const again = await seller.polar.licenseKeys.activate({ ...base, label: 'desktop again' });
    assert.equal(again.label, 'desktop again');
  });

  it('refuses activations when the benefit has none configured', async () => {
    const seeded = await seedKey(seller);
    await assert.rejects(
      seller.polar.licenseKeys.activate({
        key: seeded.key,
        organizationId: seller.organizationId,
        label: 'laptop',
      }),
      (error: NotPermitted) => {
        assert.ok(error instanceof NotPermitted);
        assert.match(error.detail, /does not support activations/);
        return true;
      },
    );
  });

  it('validates, activates and deactivates without credentials from the customer portal', async () => {
    const seeded = await seedKey(seller, { limitActivations: 1 });
    const anonymous = polarClient(api.url).customerPortal.licenseKeys;
    const base = { key: seeded.key, organizationId: seller.organizationId };
    const activation = await anonymous.activate({ ...base, label: 'phone' });
    const validated = await anonymous.validate({ ...base, activationId: activation.id });
    assert.equal(validated.activation?.label, 'phone');
    assert.equal(validated.validations, 1);
    await assert.rejects(anonymous.activate({ ...base, label: 'tablet' }), NotPermitted);
    await anonymous.deactivate({ ...base, activationId: activation.id });
    await assert.rejects(
      anonymous.validate({ ...base, organizationId: other.organizationId }),
      ResourceNotFound,
    );
    const missingKey = await callV1(
      api,
      null,
      'POST',
      '/v1/customer-portal/license-keys/validate',
      {
        organization_id: seller.organizationId,
      },
    );
    assert.equal(missingKey.status, 422);
    assert.deepEqual(missingKey.body.detail[0].loc, ['body', 'key']);
  });

  it('lets customers deactivate from the portal as the benefit’s enable_customer_admin says', async () => {
    const benefitWith = async (enableCustomerAdmin: boolean) => {
      const benefit = await seller.polar.benefits.create({
        type: 'license_keys',
        description: `Activations, customer admin ${enableCustomerAdmin}`,
        properties: { activations: { limit: 2, enableCustomerAdmin } },
      });
      assert.equal(benefit.type, 'license_keys');
      if (benefit.type === 'license_keys') {
        assert.equal(benefit.properties.activations?.enableCustomerAdmin, enableCustomerAdmin);
      }
      return benefit.id;
    };
    const allowed = await seedKey(seller, { limitActivations: 2 }, await benefitWith(true));
    const locked = await seedKey(seller, { limitActivations: 2 }, await benefitWith(false));
    const portal = polarClient(api.url).customerPortal.licenseKeys;
    /** The portal page's call: the customer's session rides along with the key. */
    const asCustomer = async (customerId: string) => {
      const { token } = await seller.polar.customerSessions.create({ customerId });
      return { headers: { authorization: `Bearer ${token}` } };
    };
    const organizationId = seller.organizationId;
    const activate = (key: string) => portal.activate({ key, organizationId, label: 'laptop' });
    const isLive = async (key: string, activationId: string) => {
      try {
        await portal.validate({ key, organizationId, activationId });
        return true;
      } catch (error) {
        assert.ok(error instanceof ResourceNotFound, String(error));
        return false;
      }
    };

    const mine = await activate(allowed.key);
    // Another customer's session cannot reach this key: not found, still live.
    await assert.rejects(
      portal.deactivate(
        { key: allowed.key, organizationId, activationId: mine.id },
        await asCustomer(locked.customerId),
      ),
      ResourceNotFound,
    );
    assert.equal(await isLive(allowed.key, mine.id), true);
    await portal.deactivate(
      { key: allowed.key, organizationId, activationId: mine.id },
      await asCustomer(allowed.customerId),
    );
    assert.equal(await isLive(allowed.key, mine.id), false);

    const theirs = await activate(locked.key);
    await assert.rejects(
      portal.deactivate(
        { key: locked.key, organizationId, activationId: theirs.id },
        await asCustomer(locked.customerId),
      ),
      (error: unknown) => {
        assert.ok(error instanceof SDKError, String(error));
        assert.equal(error.statusCode, 403);
        assert.equal(JSON.parse(error.body).error, 'NotPermitted');
        return true;
      },
    );
    assert.equal(await isLive(locked.key, theirs.id), true);
    const deadSession = await callV1(
      api,
      'polar_cst_made-up',
      'POST',
      '/v1/customer-portal/license-keys/deactivate',
      { key: locked.key, organization_id: organizationId, activation_id: theirs.id },
    );
    assert.equal(deadSession.status, 401);
    assert.equal(await isLive(locked.key, theirs.id), true);
    // An app holding the key (no session) still frees its own slot, as Polar's public call does.
    await portal.deactivate({ key: locked.key, organizationId, activationId: theirs.id });
    assert.equal(await isLive(locked.key, theirs.id), false);
  });

  it('shows a customer its own keys in the portal, and no one else’s', async () => {
    const own = await seedKey(seller, { limitActivations: 1 });
    const stranger = await seedKey(seller);
    const { token } = await seller.polar.customerSessions.create({ customerId: own.customerId });
    const security = { customerSession: token };
    const portal = seller.polar.customerPortal.licenseKeys;
    const page = await portal.list(security, {});
    assert.deepEqual(
      page.result.items.map((key) => key.id),
      [own.id],
    );
    const got = await portal.get(security, { id: own.id });
    assert.equal(got.key, own.key);
    await assert.rejects(portal.get(security, { id: stranger.id }), ResourceNotFound);
    const unauthenticated = await callV1(api, null, 'GET', '/v1/customer-portal/license-keys/');
    assert.equal(unauthenticated.status, 401);
  });
});
