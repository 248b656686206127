import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Benefit as BenefitRead } from '@polar-sh/sdk/models/components/benefit.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  Benefit,
  BenefitGrant,
  Customer,
  Meter,
  OutboxEvent,
  Product,
  ProductBenefit,
  StoredFile,
} from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { issueDiscordGuildToken } from '../../domain/benefit-properties.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('benefits (/v1/benefits, /v1/benefit-grants)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let guildToken: string;
  let meterId: string;
  let otherMeterId: string;
  let uploadedFileId: string;
  let pendingFileId: string;

  const em = () => api.orm.em.fork();

  async function seedMeter(organizationId: string): Promise<string> {
    const fork = em();
    const meter = fork.create(Meter, {
      organization: organizationId,
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    await fork.flush();
    return meter.id;
  }

  async function seedDownloadable(organizationId: string, isUploaded: boolean): Promise<string> {
    const fork = em();
    const file = fork.create(StoredFile, {
      organization: organizationId,
      name: 'handbook.pdf',
      path: `${organizationId}/${randomUUID()}/handbook.pdf`,
      mimeType: 'application/pdf',
      size: 1024,
      service: 'downloadable',
      isUploaded,
    });
    await fork.flush();
    return file.id;
  }

  async function seedGrant(
    benefitId: string,
    { grantedAt = null, revokedAt = null }: { grantedAt?: Date | null; revokedAt?: Date | null },
  ) {
    const fork = em();
    const customer = fork.create(Customer, {
      organization: seller.organizationId,
      email: `buyer-${randomUUID()}@example.com`,
    });
    const grant = fork.create(BenefitGrant, {
      customer,
      benefit: benefitId,
      grantedAt,
      revokedAt,
      // What the grant workflow keeps for itself must not reach the wire.
      properties: { account_id: null, guild_id: '1234567890', attempts: 2 },
    });
    await fork.flush();
    return { customerId: customer.id, grantId: grant.id };
  }

  const benefitCount = (organizationId: string) =>
    em().count(Benefit, { organization: organizationId });

  const createCustom = (description = 'Priority support') =>
    seller.polar.benefits.create({ type: 'custom', description, properties: { note: 'Hi!' } });

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const secret = api.config.auth.secret;
    assert.ok(secret);
    guildToken = issueDiscordGuildToken(secret, seller.organizationId, '1234567890');
    meterId = await seedMeter(seller.organizationId);
    otherMeterId = await seedMeter(other.organizationId);
    uploadedFileId = await seedDownloadable(seller.organizationId, true);
    pendingFileId = await seedDownloadable(seller.organizationId, false);
  });
  after(() => api.close());

  it('creates each type of benefit and reads it back as Polar shapes it', async () => {
    const created: BenefitRead[] = [
      await seller.polar.benefits.create({
        type: 'custom',
        description: 'Private Slack',
        properties: { note: 'Join at slack.example.com' },
        metadata: { tier: 'gold' },
      }),
      await seller.polar.benefits.create({
        type: 'discord',
        description: 'Discord role',
        properties: { guildToken, roleId: '555', kickMember: true },
      }),
      await seller.polar.benefits.create({
        type: 'github_repository',
        description: 'Source access',
        properties: { repositoryOwner: 'acme', repositoryName: 'engine', permission: 'pull' },
      }),
      await seller.polar.benefits.create({
        type: 'downloadables',
        description: 'The handbook',
        properties: { files: [uploadedFileId] },
      }),
      await seller.polar.benefits.create({
        type: 'license_keys',
        description: 'License key',
        properties: {
          prefix: 'ACME',
          expires: { ttl: 1, timeframe: 'year' },
          activations: { limit: 3, enableCustomerAdmin: true },
        },
      }),
      await seller.polar.benefits.create({
        type: 'meter_credit',
        description: '1000 API calls',
        properties: { units: 1000, rollover: true, meterId },
      }),
    ];
    const read = await Promise.all(
      created.map((benefit) => seller.polar.benefits.get({ id: benefit.id })),
    );
    assert.deepEqual(read, created);

    const [custom, discord, github, downloadables, licenseKeys, meterCredit] = read;
    assert.equal(custom?.type, 'custom');
    assert.deepEqual(custom?.properties, { note: 'Join at slack.example.com' });
    assert.deepEqual(custom?.metadata, { tier: 'gold' });
    assert.equal(custom?.organizationId, seller.organizationId);
    assert.equal(custom?.deletable, true);
    assert.equal(custom?.modifiedAt, null);
    assert.equal(discord?.type, 'discord');
    assert.deepEqual(discord?.properties, {
      guildId: '1234567890',
      roleId: '555',
      kickMember: true,
      guildToken,
    });
    assert.equal(github?.type, 'github_repository');
    assert.equal(github?.properties.permission, 'pull');
    assert.equal(downloadables?.type, 'downloadables');
    assert.deepEqual(downloadables?.properties, { archived: {}, files: [uploadedFileId] });
    assert.equal(licenseKeys?.type, 'license_keys');
    assert.deepEqual(licenseKeys?.properties, {
      prefix: 'ACME',
      expires: { ttl: 1, timeframe: 'year' },
      activations: { limit: 3, enableCustomerAdmin: true },
      limitUsage: null,
    });
    assert.equal(meterCredit?.type, 'meter_credit');
    assert.deepEqual(meterCredit?.properties, { units: 1000, rollover: true, meterId });

    const events = await em().find(OutboxEvent, {
      organization: seller.organizationId,
      type: 'benefit.created',
    });
    assert.deepEqual(
      events.map((event) => event.data.id).sort(),
      created.map((benefit) => benefit.id).sort(),
    );
  });

  it('lists live benefits by type, description, metadata and sorting', async () => {
    const byType = await seller.polar.benefits.list({ typeFilter: ['discord', 'meter_credit'] });
    assert.deepEqual(byType.result.items.map((benefit) => benefit.type).sort(), [
      'discord',
      'meter_credit',
    ]);
    const byQuery = await seller.polar.benefits.list({ query: 'HANDBOOK' });
    assert.deepEqual(
      byQuery.result.items.map((benefit) => benefit.description),
      ['The handbook'],
    );
    const byMetadata = await seller.polar.benefits.list({ metadata: { tier: 'gold' } });
    assert.deepEqual(
      byMetadata.result.items.map((benefit) => benefit.description),
      ['Private Slack'],
    );
    const sorted = await seller.polar.benefits.list({ sorting: ['description'], limit: 2 });
    assert.deepEqual(
      sorted.result.items.map((benefit) => benefit.description),
      ['1000 API calls', 'Discord role'],
    );
    assert.equal(sorted.result.pagination.totalCount, 6);
    assert.equal(sorted.result.pagination.maxPage, 3);

    const foreign = await seller.polar.benefits.list({ organizationId: other.organizationId });
    assert.equal(foreign.result.items.length, 0);
    const badSorting = await callV1(api, seller.token, 'GET', '/v1/benefits/?sorting=note');
    assert.equal(badSorting.status, 422);
  });

  it('updates description, metadata and properties (replaced whole), recording benefit.updated', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Pro license',
      properties: { prefix: 'PRO', limitUsage: 10 },
    });
    const updated = await seller.polar.benefits.update({
      id: benefit.id,
      requestBody: {
        type: 'license_keys',
        description: 'Pro license v2',
        properties: { activations: { limit: 5, enableCustomerAdmin: false } },
        metadata: { plan: 'pro' },
      },
    });
    assert.equal(updated.description, 'Pro license v2');
    assert.deepEqual(updated.metadata, { plan: 'pro' });
    assert.deepEqual(updated.properties, {
      prefix: null,
      expires: null,
      activations: { limit: 5, enableCustomerAdmin: false },
      limitUsage: null,
    });
    assert.ok(updated.modifiedAt instanceof Date);

    const renamedOnly = await seller.polar.benefits.update({
      id: benefit.id,
      requestBody: { type: 'license_keys', description: 'Pro license v3' },
    });
    assert.deepEqual(renamedOnly.properties, updated.properties);
    assert.deepEqual(renamedOnly.metadata, { plan: 'pro' });

    const events = await em().find(
      OutboxEvent,
      { organization: seller.organizationId, type: 'benefit.updated' },
      { orderBy: { createdAt: 'asc' } },
    );
    const descriptions = events
      .filter((event) => event.data.id === benefit.id)
      .map((event) => event.data.description);
    assert.deepEqual(descriptions, ['Pro license v2', 'Pro license v3']);
  });

  it('deletes softly: gone from reads and products, grants revoked, benefit.updated recorded', async () => {
    const benefit = await createCustom('Office hours');
    const kept = await createCustom('Newsletter');
    const fork = em();
    const product = fork.create(Product, { organization: seller.organizationId, name: 'Pro' });
    fork.create(ProductBenefit, { product, benefit: benefit.id, order: 0 });
    fork.create(ProductBenefit, { product, benefit: kept.id, order: 1 });
    await fork.flush();
    const { grantId } = await seedGrant(benefit.id, { grantedAt: new Date() });
    const before = await seller.polar.products.get({ id: product.id });
    assert.deepEqual(
      before.benefits.map((linked) => linked.id),
      [benefit.id, kept.id],
    );

    await seller.polar.benefits.delete({ id: benefit.id });

    await assert.rejects(seller.polar.benefits.get({ id: benefit.id }), ResourceNotFound);
    await assert.rejects(seller.polar.benefits.delete({ id: benefit.id }), ResourceNotFound);
    const listed = await seller.polar.benefits.list({ limit: 100 });
    assert.ok(!listed.result.items.some((item) => item.id === benefit.id));
    const after = await seller.polar.products.get({ id: product.id });
    assert.deepEqual(
      after.benefits.map((linked) => linked.id),
      [kept.id],
    );
    const row = await em().findOneOrFail(Benefit, benefit.id);
    assert.ok(row.deletedAt instanceof Date);
    // Its grants are revoked by their grant workflows, soon after.
    await eventually(
      () => em().findOneOrFail(BenefitGrant, grantId),
      (grant) => grant.revokedAt instanceof Date,
      { what: 'the grant revoked' },
    );
    const event = await em().findOne(OutboxEvent, {
      organization: seller.organizationId,
      type: 'benefit.updated',
      data: { id: benefit.id },
    });
    assert.equal(event?.data.description, 'Office hours');
  });

  it('refuses to delete a benefit that is not deletable, with 403 NotPermitted', async () => {
    const benefit = await createCustom('Built-in perk');
    await em().nativeUpdate(Benefit, { id: benefit.id }, { deletable: false });
    await assert.rejects(seller.polar.benefits.delete({ id: benefit.id }), NotPermitted);
    const read = await seller.polar.benefits.get({ id: benefit.id });
    assert.equal(read.deletable, false);
  });

  it('lists grants with their customer and benefit, filtered by state and customer', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'discord',
      description: 'Members role',
      properties: { guildToken, roleId: '777', kickMember: false },
    });
    const granted = await seedGrant(benefit.id, { grantedAt: new Date('2026-01-01T00:00:00Z') });
    const revoked = await seedGrant(benefit.id, {
      grantedAt: new Date('2026-01-02T00:00:00Z'),
      revokedAt: new Date('2026-01-03T00:00:00Z'),
    });

    const all = await seller.polar.benefits.grants({ id: benefit.id });
    assert.equal(all.result.items.length, 2);
    const current = await seller.polar.benefits.grants({ id: benefit.id, isGranted: true });
    assert.deepEqual(
      current.result.items.map((grant) => grant.id),
      [granted.grantId],
    );
    const [grant] = current.result.items;
    assert.equal(grant?.isGranted, true);
    assert.equal(grant?.isRevoked, false);
    assert.equal(grant?.customer.id, granted.customerId);
    assert.equal(grant?.benefit.id, benefit.id);
    assert.equal(grant?.benefitId, benefit.id);
    assert.equal(grant?.subscriptionId, null);

    const ended = await seller.polar.benefitGrants.list({
      isGranted: false,
      customerId: revoked.customerId,
    });
    assert.deepEqual(
      ended.result.items.map((item) => [item.id, item.isGranted, item.isRevoked]),
      [[revoked.grantId, false, true]],
    );
    const latestGrantFirst = await seller.polar.benefitGrants.list({
      customerId: [granted.customerId, revoked.customerId],
      sorting: ['-granted_at'],
    });
    assert.deepEqual(
      latestGrantFirst.result.items.map((item) => item.id),
      [revoked.grantId, granted.grantId],
    );

    const wire = await callV1(api, seller.token, 'GET', `/v1/benefits/${benefit.id}/grants`);
    const rawGrant = wire.body.items.find((item: { id: string }) => item.id === granted.grantId);
    assert.deepEqual(rawGrant.properties, { account_id: null, guild_id: '1234567890' });
    assert.equal(rawGrant.revoked_at, null);

    const foreign = await seller.polar.benefitGrants.list({
      organizationId: other.organizationId,
    });
    assert.equal(foreign.result.items.length, 0);
  });

  describe('refuses bad input with 422 at the field, writing nothing', () => {
    const refusals: [string, () => object, (string | number)[]][] = [
      [
        'a description too short',
        () => ({ type: 'custom', description: 'ab', properties: {} }),
        ['body', 'description'],
      ],
      [
        'a GitHub permission Polar does not know',
        () => ({
          type: 'github_repository',
          description: 'Source access',
          properties: { repository_owner: 'acme', repository_name: 'engine', permission: 'owner' },
        }),
        ['body', 'properties', 'permission'],
      ],
      [
        "another organization's meter",
        () => ({
          type: 'meter_credit',
          description: 'Credits',
          properties: { units: 10, rollover: false, meter_id: otherMeterId },
        }),
        ['body', 'properties', 'meter_id'],
      ],
      [
        'credits of zero units',
        () => ({
          type: 'meter_credit',
          description: 'Credits',
          properties: { units: 0, rollover: false, meter_id: meterId },
        }),
        ['body', 'properties', 'units'],
      ],
      [
        'a downloadable file not uploaded yet',
        () => ({
          type: 'downloadables',
          description: 'Files',
          properties: { files: [uploadedFileId, pendingFileId] },
        }),
        ['body', 'properties', 'files', 1],
      ],
      [
        'a forged guild token',
        () => ({
          type: 'discord',
          description: 'Discord role',
          properties: {
            guild_token: issueDiscordGuildToken(
              'not the secret',
              seller.organizationId,
              '1234567890',
            ),
            role_id: '555',
            kick_member: false,
          },
        }),
        ['body', 'properties', 'guild_token'],
      ],
      [
        "another organization's guild token",
        () => ({
          type: 'discord',
          description: 'Discord role',
          properties: {
            guild_token: issueDiscordGuildToken(
              api.config.auth.secret ?? '',
              other.organizationId,
              '1234567890',
            ),
            role_id: '555',
            kick_member: false,
          },
        }),
        ['body', 'properties', 'guild_token'],
      ],
      [
        'too many license key activations',
        () => ({
          type: 'license_keys',
          description: 'License',
          properties: { activations: { limit: 51, enable_customer_admin: false } },
        }),
        ['body', 'properties', 'activations', 'limit'],
      ],
    ];
    for (const [name, body, loc] of refusals) {
      it(name, async () => {
        const before = await benefitCount(seller.organizationId);
        const refused = await callV1(api, seller.token, 'POST', '/v1/benefits/', body());
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.deepEqual(refused.body.detail[0].loc, loc);
        assert.equal(await benefitCount(seller.organizationId), before);
      });
    }

    it('an update naming another type', async () => {
      const benefit = await createCustom('Stays custom');
      const refused = await callV1(api, seller.token, 'PATCH', `/v1/benefits/${benefit.id}`, {
        type: 'github_repository',
        description: 'Now GitHub',
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'type']);
      const read = await seller.polar.benefits.get({ id: benefit.id });
      assert.equal(read.description, 'Stays custom');
      assert.equal(read.modifiedAt, null);
    });

    it('an update with a forged guild token', async () => {
      const benefit = await seller.polar.benefits.create({
        type: 'discord',
        description: 'Guild role',
        properties: { guildToken, roleId: '1', kickMember: false },
      });
      const refused = await callV1(api, seller.token, 'PATCH', `/v1/benefits/${benefit.id}`, {
        type: 'discord',
        description: 'Moved guild',
        properties: { guild_token: '42.forged', role_id: '1', kick_member: false },
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'properties', 'guild_token']);
      const read = await seller.polar.benefits.get({ id: benefit.id });
      assert.equal(read.description, 'Guild role');
    });
  });

  it("never reads or changes another organization's benefit: its id is simply not found", async () => {
    const benefit = await createCustom('Seller only');
    await assert.rejects(other.polar.benefits.get({ id: benefit.id }), ResourceNotFound);
    await assert.rejects(
      other.polar.benefits.update({
        id: benefit.id,
        requestBody: { type: 'custom', description: 'Taken over' },
      }),
      ResourceNotFound,
    );
    await assert.rejects(other.polar.benefits.delete({ id: benefit.id }), ResourceNotFound);
    await assert.rejects(other.polar.benefits.grants({ id: benefit.id }), ResourceNotFound);
    const otherList = await other.polar.benefits.list({});
    assert.ok(!otherList.result.items.some((item) => item.id === benefit.id));
    const otherGrants = await other.polar.benefitGrants.list({});
    assert.equal(otherGrants.result.items.length, 0);
    const untouched = await seller.polar.benefits.get({ id: benefit.id });
    assert.equal(untouched.description, 'Seller only');
  });
});
