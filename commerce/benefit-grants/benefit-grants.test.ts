import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CustomerState } from '@polar-sh/sdk/models/components/customerstate.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createBenefitGrantActivities } from '../../activities/benefit-grants.ts';
import {
  Benefit,
  BenefitGrant,
  CustomerOAuthAccount,
  Downloadable,
  LicenseKey,
  Meter,
  Order,
  OutboxEvent,
  Refund,
  Subscription,
} from '../../db/entities/index.ts';
import { type DiscordApiFake, startDiscordApiFake } from '../../devstack/discord-api.ts';
import { eventually } from '../../devstack/eventually.ts';
import { type GitHubApiFake, startGitHubApiFake } from '../../devstack/github-api.ts';
import { addLocalProviderUser } from '../../devstack/oauth-provider.ts';
import { issueDiscordGuildToken } from '../../domain/benefit-properties.ts';
import { requestGrantChange } from '../../processes/starters.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { workersOnOwnQueue } from '../../temporal/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { downloadUrl, signDownload } from './downloads.ts';
import { atTestApi, paidOrder, productWithBenefits, uploadDownloadable } from './testing.ts';

// The in-process worker logs every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

const tag = () => randomBytes(5).toString('hex');

describe('benefit grants (grant workflow, customer state, portal)', () => {
  let api: TestApi;
  let seller: Seller;
  let grants: ReturnType<typeof createBenefitGrantActivities>;
  let meterId: string;

  const em = () => api.orm.em.fork();
  const newCustomer = () =>
    seller.polar.customers.create({ email: `grantee-${tag()}@example.com` });
  const stateOf = (customerId: string) => seller.polar.customers.getState({ id: customerId });
  const grantRow = (customerId: string, benefitId: string) =>
    em().findOne(BenefitGrant, { customer: customerId, benefit: benefitId });
  const sessionOf = async (customerId: string) =>
    (await seller.polar.customerSessions.create({ customerId })).token;

  /** An active monthly subscription of the customer to the product, as billing writes it. */
  const activeSubscription = async (customerId: string, productId: string) => {
    const fork = em();
    const subscription = fork.create(Subscription, {
      organization: seller.organizationId,
      customer: customerId,
      product: productId,
      status: 'active',
      amount: 1000,
      currency: 'usd',
      recurringInterval: 'month',
      currentPeriodStart: new Date(),
    });
    await fork.flush();
    return subscription;
  };

  /** Resolves once the grant workflow of the customer's benefit handled every request. */
  const grantRunDone = (customerId: string, benefitId: string, what: string) =>
    eventually(
      () =>
        api.temporal.workflow.getHandle(workflowIds.benefitGrant(customerId, benefitId)).describe(),
      (run) => run.status.name === 'COMPLETED',
      { what },
    );

  /** The `benefit_grant.<change>` events the customer's grants appended to the outbox. */
  const grantEventsOf = (
    customerId: string,
    change: 'created' | 'revoked' | 'cycled' | 'updated',
  ) =>
    em().find(OutboxEvent, {
      organization: seller.organizationId,
      type: `benefit_grant.${change}`,
      data: { customer_id: customerId },
    });

  /** The state once `benefitIds` are exactly what the customer holds. */
  const holding = (customerId: string, benefitIds: string[]) =>
    eventually(
      () => stateOf(customerId),
      (state: CustomerState) =>
        state.grantedBenefits
          .map((grant) => grant.benefitId)
          .sort()
          .join() === [...benefitIds].sort().join(),
      { what: `customer ${customerId} holding ${benefitIds.length} benefits` },
    );

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    grants = createBenefitGrantActivities(
      { orm: api.orm, temporal: api.temporal },
      api.config.benefitIntegrations,
    );
    const fork = em();
    const meter = fork.create(Meter, {
      organization: seller.organizationId,
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    await fork.flush();
    meterId = meter.id;
  });
  after(() => api.close());

  it('grants custom, license key, downloadables and meter credit, in the customer state, then revokes them', async () => {
    const file = await uploadDownloadable(api, seller, 'handbook.txt', Buffer.from('the handbook'));
    const custom = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Office hours',
      properties: { note: 'Book at cal.example.com' },
    });
    const licenseKeys = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'License key',
      properties: {
        prefix: 'acme',
        expires: { ttl: 1, timeframe: 'year' },
        activations: { limit: 2, enableCustomerAdmin: true },
        limitUsage: 100,
      },
    });
    const downloadables = await seller.polar.benefits.create({
      type: 'downloadables',
      description: 'The handbook',
      properties: { files: [file.id] },
    });
    const meterCredit = await seller.polar.benefits.create({
      type: 'meter_credit',
      description: '1000 API calls',
      properties: { units: 1000, rollover: false, meterId },
    });
    const benefitIds = [custom.id, licenseKeys.id, downloadables.id, meterCredit.id];
    const product = await productWithBenefits(seller, benefitIds);
    const customer = await newCustomer();
    const order = await paidOrder(api, seller, customer.id, product.id);

    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });

    const state = await holding(customer.id, benefitIds);
    // The SDK reads every grant's properties as Discord's (all optional, tried first), so they
    // are checked on the wire.
    const wire = await callV1(api, seller.token, 'GET', `/v1/customers/${customer.id}/state`);
    const granted = new Map<string, Record<string, unknown>>(
      wire.body.granted_benefits.map((grant: { benefit_type: string; properties: object }) => [
        grant.benefit_type,
        grant.properties,
      ]),
    );
    assert.deepEqual(granted.get('custom'), {});
    const [key] = (await seller.polar.licenseKeys.list({ benefitId: licenseKeys.id })).result.items;
    assert.ok(key);
    assert.match(key.key, /^ACME-[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    assert.equal(key.displayKey, `****-${key.key.slice(-6)}`);
    assert.equal(key.status, 'granted');
    assert.equal(key.limitActivations, 2);
    assert.equal(key.limitUsage, 100);
    assert.equal(key.customerId, customer.id);
    const inAYear = Date.now() + 365 * 24 * 3600 * 1000;
    assert.ok(Math.abs((key.expiresAt?.getTime() ?? 0) - inAYear) < 2 * 24 * 3600 * 1000);
    assert.deepEqual(granted.get('license_keys'), {
      license_key_id: key.id,
      display_key: key.displayKey,
    });
    assert.deepEqual(granted.get('downloadables'), { files: [file.id] });
    assert.equal(granted.get('meter_credit')?.last_credited_units, 1000);
    assert.equal(granted.get('meter_credit')?.last_credited_meter_id, meterId);
    assert.deepEqual(
      state.activeMeters.map((meter) => [meter.meterId, meter.creditedUnits, meter.balance]),
      [[meterId, 1000, 1000]],
    );
    // The custom note reaches the customer with its grant, in the portal.
    const token = await sessionOf(customer.id);
    const portalGrants = await seller.polar.customerPortal.benefitGrants.list(
      { customerSession: token },
      { typeFilter: ['custom'] },
    );
    const [customGrant] = portalGrants.result.items;
    assert.equal(customGrant?.benefit.type, 'custom');
    assert.deepEqual(customGrant?.benefit.type === 'custom' && customGrant.benefit.properties, {
      note: 'Book at cal.example.com',
    });
    const created = await grantEventsOf(customer.id, 'created');
    assert.equal(created.length, 4);
    assert.ok(created.every((event) => event.data.order_id === order.id && event.data.is_granted));

    // Granting again (a retried activity, a second request) changes nothing.
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });
    await grantRunDone(customer.id, meterCredit.id, 'the meter credit grant run done');
    assert.equal((await stateOf(customer.id)).activeMeters[0]?.creditedUnits, 1000);
    assert.equal(
      (await seller.polar.licenseKeys.list({ benefitId: licenseKeys.id })).result.items.length,
      1,
    );

    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });

    const revoked = await holding(customer.id, []);
    assert.deepEqual(
      revoked.activeMeters.map((meter) => [meter.creditedUnits, meter.balance]),
      [[0, 0]],
    );
    const keyRow = await em().findOneOrFail(LicenseKey, { id: key.id });
    assert.equal(keyRow.status, 'revoked');
    const files = await em().find(Downloadable, { customer: customer.id });
    assert.deepEqual(
      files.map((downloadable) => downloadable.status),
      ['revoked'],
    );
    const listed = await seller.polar.benefitGrants.list({
      customerId: customer.id,
      isGranted: false,
    });
    assert.equal(listed.result.items.length, 4);
    assert.ok(listed.result.items.every((grant) => grant.isRevoked && grant.revokedAt));
    assert.equal((await grantEventsOf(customer.id, 'revoked')).length, 4);
  });

  it('shares one grant between orders and keeps it until no paid order gives it', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Community access',
      properties: { note: null },
    });
    const first = await productWithBenefits(seller, [benefit.id]);
    const second = await productWithBenefits(seller, [benefit.id]);
    const customer = await newCustomer();
    const firstOrder = await paidOrder(api, seller, customer.id, first.id);
    const secondOrder = await paidOrder(api, seller, customer.id, second.id);
    const request = { organizationId: seller.organizationId, customerId: customer.id };

    await grants.requestBenefitGrants({ ...request, productId: first.id, orderId: firstOrder.id });
    await grants.requestBenefitGrants({
      ...request,
      productId: second.id,
      orderId: secondOrder.id,
    });
    await holding(customer.id, [benefit.id]);
    assert.equal(await em().count(BenefitGrant, { customer: customer.id }), 1);

    // The first order is refunded: the second still gives the benefit, and now holds the grant.
    const fork = em();
    await fork.nativeUpdate(Order, { id: firstOrder.id }, { status: 'refunded' });
    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: first.id,
      orderId: firstOrder.id,
    });
    const moved = await eventually(
      () => grantRow(customer.id, benefit.id),
      (grant) => grant?.orderId === secondOrder.id,
      { what: 'the grant moved to the second order' },
    );
    assert.equal(moved?.revokedAt, null);
    assert.equal((await stateOf(customer.id)).grantedBenefits.length, 1);

    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: second.id,
      orderId: secondOrder.id,
    });
    await holding(customer.id, []);
  });

  it('keeps a grant an active subscription still gives, and revokes it when the subscription ends', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Pro key',
      properties: { prefix: 'PRO' },
    });
    const product = await productWithBenefits(seller, [benefit.id]);
    const customer = await newCustomer();
    const order = await paidOrder(api, seller, customer.id, product.id);
    const subscription = await activeSubscription(customer.id, product.id);
    const request = { organizationId: seller.organizationId, customerId: customer.id };
    await grants.requestBenefitGrants({ ...request, productId: product.id, orderId: order.id });
    await grants.requestBenefitGrants({
      ...request,
      productId: product.id,
      subscriptionId: subscription.id,
    });
    await holding(customer.id, [benefit.id]);

    await em().nativeUpdate(Order, { id: order.id }, { status: 'refunded' });
    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });
    await eventually(
      () => grantRow(customer.id, benefit.id),
      (grant) => grant?.subscriptionId === subscription.id && grant.orderId === null,
      { what: 'the grant held by the subscription' },
    );
    assert.equal(
      (await em().findOneOrFail(LicenseKey, { customer: customer.id })).status,
      'granted',
    );

    await em().nativeUpdate(Subscription, { id: subscription.id }, { status: 'canceled' });
    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: product.id,
      subscriptionId: subscription.id,
    });
    await holding(customer.id, []);
    assert.equal(
      (await em().findOneOrFail(LicenseKey, { customer: customer.id })).status,
      'revoked',
    );
  });

  it('gives nothing when a source stopped giving the benefit before its grant ran', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Late key',
      properties: { prefix: 'LATE' },
    });
    const product = await productWithBenefits(seller, [benefit.id]);
    const customer = await newCustomer();
    const request = {
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
    };
    // Each source ended, and its revocation ran, before the checkout's grant step (retried
    // late) got to it: a refund that took the benefits back, a subscription that ended.
    const refunded = await paidOrder(api, seller, customer.id, product.id);
    const fork = em();
    fork.create(Refund, {
      organization: seller.organizationId,
      order: refunded.id,
      customer: customer.id,
      status: 'succeeded',
      reason: 'customer_request',
      amount: 100,
      taxAmount: 0,
      currency: 'usd',
      revokeBenefits: true,
      metadata: {},
    });
    await fork.nativeUpdate(Order, { id: refunded.id }, { status: 'partially_refunded' });
    await fork.flush();
    const ended = await activeSubscription(customer.id, product.id);
    await em().nativeUpdate(Subscription, { id: ended.id }, { status: 'canceled' });
    await grants.grantCheckoutBenefits({ ...request, orderId: refunded.id });
    await grants.grantCheckoutBenefits({ ...request, subscriptionId: ended.id });
    assert.equal(await grantRow(customer.id, benefit.id), null);
    assert.equal(await em().count(LicenseKey, { customer: customer.id }), 0);

    // A source still giving it (a paid order) is granted as ever.
    const paid = await paidOrder(api, seller, customer.id, product.id);
    await grants.grantCheckoutBenefits({ ...request, orderId: paid.id });
    assert.equal((await grantRow(customer.id, benefit.id))?.orderId, paid.id);
    await holding(customer.id, [benefit.id]);
  });

  it('renews a subscription’s meter credit each period, rolling unused units over, once per period', async () => {
    const benefit = await seller.polar.benefits.create({
      type: 'meter_credit',
      description: '100 calls a month',
      properties: { units: 100, rollover: true, meterId },
    });
    const product = await productWithBenefits(seller, [benefit.id]);
    const customer = await newCustomer();
    const subscription = await activeSubscription(customer.id, product.id);
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      subscriptionId: subscription.id,
    });
    const granted = await holding(customer.id, [benefit.id]);
    assert.equal(granted.activeMeters[0]?.creditedUnits, 100);

    const cycle = {
      customerId: customer.id,
      subscriptionId: subscription.id,
      periodStart: '2026-12-22T00:00:00.000Z',
    };
    await grants.requestBenefitCycles(cycle);
    // The unused 100 roll over beside the new period's 100.
    await eventually(
      () => stateOf(customer.id),
      (state) => state.activeMeters[0]?.creditedUnits === 200,
      { what: 'the meter renewed' },
    );
    await grants.requestBenefitCycles(cycle);
    await grantRunDone(customer.id, benefit.id, 'the second cycle handled');
    assert.equal((await stateOf(customer.id)).activeMeters[0]?.creditedUnits, 200);
    const cycled = await grantEventsOf(customer.id, 'cycled');
    assert.equal(cycled.length, 1);
    assert.equal(cycled[0]?.data.subscription_id, subscription.id);
  });

  it('follows the seller’s changes to a benefit: new key limits, new file list', async () => {
    const first = await uploadDownloadable(api, seller, 'v1.txt', Buffer.from('version 1'));
    const second = await uploadDownloadable(api, seller, 'v2.txt', Buffer.from('version 2'));
    const files = await seller.polar.benefits.create({
      type: 'downloadables',
      description: 'Releases',
      properties: { files: [first.id] },
    });
    const key = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Key',
      properties: { activations: { limit: 1, enableCustomerAdmin: false } },
    });
    const product = await productWithBenefits(seller, [files.id, key.id]);
    const customer = await newCustomer();
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: (await paidOrder(api, seller, customer.id, product.id)).id,
    });
    await holding(customer.id, [files.id, key.id]);

    await seller.polar.benefits.update({
      id: files.id,
      requestBody: { type: 'downloadables', properties: { files: [second.id] } },
    });
    await seller.polar.benefits.update({
      id: key.id,
      requestBody: {
        type: 'license_keys',
        properties: { activations: { limit: 3, enableCustomerAdmin: false }, limitUsage: 50 },
      },
    });

    const security = { customerSession: await sessionOf(customer.id) };
    await eventually(
      () => seller.polar.customerPortal.downloadables.list(security, {}),
      (page) => page.result.items.map((item) => item.file.id).join() === second.id,
      { what: 'the new file list granted' },
    );
    const updatedKey = await eventually(
      () => em().findOneOrFail(LicenseKey, { customer: customer.id }),
      (row) => row.limitActivations === 3,
      { what: 'the key’s new limits' },
    );
    assert.equal(updatedKey.limitUsage, 50);
    assert.equal((await grantEventsOf(customer.id, 'updated')).length, 2);
  });

  it('lists granted files with signed download URLs that expire and cannot be altered', async () => {
    const content = Buffer.from(`release notes ${tag()}`);
    const file = await uploadDownloadable(api, seller, 'notes.txt', content);
    const benefit = await seller.polar.benefits.create({
      type: 'downloadables',
      description: 'Release notes',
      properties: { files: [file.id] },
    });
    const product = await productWithBenefits(seller, [benefit.id]);
    const customer = await newCustomer();
    const stranger = await newCustomer();
    const order = await paidOrder(api, seller, customer.id, product.id);
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });
    await holding(customer.id, [benefit.id]);

    const security = { customerSession: await sessionOf(customer.id) };
    const page = await seller.polar.customerPortal.downloadables.list(security, {});
    const [downloadable] = page.result.items;
    assert.equal(page.result.items.length, 1);
    assert.equal(downloadable?.benefitId, benefit.id);
    assert.equal(downloadable?.file.id, file.id);
    assert.equal(downloadable?.file.name, 'notes.txt');
    const { expiresAt, ...download } = downloadable?.file.download ?? {
      url: '',
      expiresAt: new Date(),
    };
    assert.ok(
      download.url.startsWith(
        `${api.config.api.publicUrl}/v1/customer-portal/downloadables/files/`,
      ),
    );
    const url = atTestApi(api, download.url);
    assert.ok(expiresAt.getTime() > Date.now());

    const fetched = await fetch(url);
    assert.equal(fetched.status, 200);
    assert.equal(await fetched.text(), content.toString());
    assert.match(fetched.headers.get('content-disposition') ?? '', /attachment/);
    const row = await em().findOneOrFail(Downloadable, { id: downloadable?.id });
    assert.equal(row.downloaded, 1);

    const tampered = url.replace(/\.([^.]+)$/, (_, signature: string) => `.${signature.slice(1)}A`);
    assert.equal((await fetch(tampered)).status, 403);
    const secret = api.config.auth.secret ?? '';
    const expired = signDownload(secret, {
      downloadableId: downloadable?.id ?? '',
      expiresAt: Date.now() - 1000,
    });
    const refused = await fetch(
      downloadUrl(api.config.api.publicUrl, expired).replace(api.config.api.publicUrl, api.url),
    );
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: string }).error, 'NotPermitted');

    const strangerPage = await seller.polar.customerPortal.downloadables.list(
      { customerSession: await sessionOf(stranger.id) },
      {},
    );
    assert.deepEqual(strangerPage.result.items, []);

    // Refunded and revoked: neither listed nor downloadable, even with a URL still unexpired.
    await em().nativeUpdate(Order, { id: order.id }, { status: 'refunded' });
    await grants.requestBenefitRevocations({
      customerId: customer.id,
      productId: product.id,
      orderId: order.id,
    });
    await holding(customer.id, []);
    const after = await seller.polar.customerPortal.downloadables.list(security, {});
    assert.deepEqual(after.result.items, []);
    assert.equal((await fetch(url)).status, 404);
  });

  it('revokes the grants of a deleted benefit and of a deleted customer through their workflows', async () => {
    const licenseKeys = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Key',
      properties: {},
    });
    const custom = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Perk',
      properties: { note: null },
    });
    const product = await productWithBenefits(seller, [licenseKeys.id, custom.id]);
    const customer = await newCustomer();
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: (await paidOrder(api, seller, customer.id, product.id)).id,
    });
    await holding(customer.id, [licenseKeys.id, custom.id]);

    await seller.polar.benefits.delete({ id: licenseKeys.id });
    await holding(customer.id, [custom.id]);
    const key = await em().findOneOrFail(LicenseKey, { customer: customer.id });
    assert.equal(key.status, 'revoked');

    await seller.polar.customers.delete({ id: customer.id });
    const grant = await eventually(
      () => grantRow(customer.id, custom.id),
      (row) => row?.revokedAt instanceof Date,
      { what: 'the deleted customer’s grant revoked' },
    );
    assert.ok(grant);
  });

  describe('Discord and GitHub, through their HTTP APIs', () => {
    let discord: DiscordApiFake;
    let github: GitHubApiFake;
    let workers: Awaited<ReturnType<typeof workersOnOwnQueue>>;
    let worker: Awaited<ReturnType<typeof workers.start>>;
    const guildId = '81384788765712384';

    /** This test's own worker, talking to the fakes: its grant workflows run on its queue. */
    async function startWorker() {
      worker = await workers.start(
        createBenefitGrantActivities(
          { orm: api.orm, temporal: api.temporal },
          {
            discord: { apiBaseUrl: discord.baseUrl, botToken: discord.botToken },
            github: { apiBaseUrl: github.baseUrl, token: github.token },
          },
        ),
      );
    }

    before(async () => {
      discord = await startDiscordApiFake();
      github = await startGitHubApiFake();
      workers = await workersOnOwnQueue(api, 'benefit-grants');
      await startWorker();
    });
    after(async () => {
      await worker.stop();
      await workers.close();
      await discord.stop();
      await github.stop();
    });

    /** The grant row once it waits for the customer to link an account. */
    const waitingForAccount = (customerId: string, benefitId: string) =>
      eventually(
        () => grantRow(customerId, benefitId),
        (grant) => grant !== null && grant.properties.account_id === null,
        { what: 'the grant waiting for an account' },
      );

    /** A Discord user id (a snowflake) no other test uses. */
    const newDiscordUserId = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

    /** Grants or revokes through the workflow on this test's queue. */
    const change = (
      customerId: string,
      benefitId: string,
      request: Parameters<typeof requestGrantChange>[2],
    ) =>
      requestGrantChange(
        api.temporal,
        { organizationId: seller.organizationId, customerId, benefitId },
        request,
        workers.taskQueue,
      );

    it('waits for a linked Discord account, links it from the portal, gives the role, takes it back', async () => {
      const secret = api.config.auth.secret ?? '';
      const benefit = await seller.polar.benefits.create({
        type: 'discord',
        description: 'Discord role',
        properties: {
          guildToken: issueDiscordGuildToken(secret, seller.organizationId, guildId),
          roleId: '555',
          kickMember: false,
        },
      });
      const customer = await newCustomer();
      const userId = newDiscordUserId();
      discord.addMember(guildId, userId);

      await change(customer.id, benefit.id, {
        action: 'grant',
        orderId: null,
        subscriptionId: null,
      });
      const waiting = await waitingForAccount(customer.id, benefit.id);
      assert.equal(waiting?.grantedAt, null);
      const listed = await seller.polar.benefitGrants.list({ customerId: customer.id });
      assert.equal(listed.result.items[0]?.isGranted, false);
      assert.deepEqual((await stateOf(customer.id)).grantedBenefits, []);

      const security = { customerSession: await sessionOf(customer.id) };
      const wrongType = seller.polar.customerPortal.benefitGrants.update(security, {
        id: waiting?.id ?? '',
        customerBenefitGrantUpdate: {
          benefitType: 'github_repository',
          properties: { accountId: 'x' },
        },
      });
      await assert.rejects(wrongType, (error: { statusCode?: number }) => error.statusCode === 422);
      const updated = await seller.polar.customerPortal.benefitGrants.update(security, {
        id: waiting?.id ?? '',
        customerBenefitGrantUpdate: { benefitType: 'discord', properties: { accountId: userId } },
      });
      assert.equal(updated.benefitId, benefit.id);
      assert.deepEqual(updated.properties, { accountId: userId, guildId, roleId: '555' });
      assert.deepEqual(updated.customer.oauthAccounts, {
        discord: { accountId: userId, accountUsername: null },
      });

      const state = await holding(customer.id, [benefit.id]);
      assert.deepEqual(state.grantedBenefits[0]?.properties, {
        accountId: userId,
        guildId,
        roleId: '555',
        grantedAccountId: userId,
      });
      assert.deepEqual(discord.rolesOf(guildId, userId), ['555']);

      await change(customer.id, benefit.id, {
        action: 'revoke',
        force: false,
        orderId: null,
        subscriptionId: null,
      });
      await holding(customer.id, []);
      assert.deepEqual(discord.rolesOf(guildId, userId), []);
      // A revoked grant cannot be changed from the portal.
      await assert.rejects(
        seller.polar.customerPortal.benefitGrants.update(security, {
          id: waiting?.id ?? '',
          customerBenefitGrantUpdate: { benefitType: 'discord', properties: { accountId: userId } },
        }),
        NotPermitted,
      );
    });

    it('links a Discord account through Discord’s consent screen; the bot then adds the customer', async () => {
      const provider = api.config.auth.social.providers.discord;
      assert.ok(provider?.baseUrl, 'the test stack runs a local Discord OAuth provider');
      const benefit = await seller.polar.benefits.create({
        type: 'discord',
        description: 'Members only',
        properties: {
          guildToken: issueDiscordGuildToken(
            api.config.auth.secret ?? '',
            seller.organizationId,
            guildId,
          ),
          roleId: '777',
          kickMember: true,
        },
      });
      const customer = await newCustomer();
      const userId = newDiscordUserId();
      await addLocalProviderUser(provider.baseUrl, {
        id: userId,
        email: null,
        emailVerified: false,
        name: 'Ada Lovelace',
      });
      await change(customer.id, benefit.id, {
        action: 'grant',
        orderId: null,
        subscriptionId: null,
      });
      await waitingForAccount(customer.id, benefit.id);

      const token = await sessionOf(customer.id);
      const returnTo = `${api.config.api.publicUrl}/portal`;
      const authorize = await fetch(
        `${api.url}/v1/customer-portal/oauth-accounts/authorize?platform=discord&return_to=${encodeURIComponent(returnTo)}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      assert.equal(authorize.status, 200);
      const { url } = (await authorize.json()) as { url: string };
      assert.ok(url.startsWith(`${provider.baseUrl}/oauth2/authorize?`));
      const consent = await fetch(`${url}&login_hint=${userId}`, { redirect: 'manual' });
      const callback = consent.headers.get('location') ?? '';
      assert.ok(callback.includes('/v1/customer-portal/oauth-accounts/callback?'), callback);
      const back = await fetch(atTestApi(api, callback), { redirect: 'manual' });
      assert.equal(back.status, 302);
      assert.equal(back.headers.get('location'), returnTo);

      // Discord's bot added the customer to the guild with the role, with their token.
      await holding(customer.id, [benefit.id]);
      assert.deepEqual(discord.rolesOf(guildId, userId), ['777']);
      const me = await seller.polar.customerPortal.customers.get({ customerSession: token });
      assert.deepEqual(me.oauthAccounts, {
        discord: { accountId: userId, accountUsername: 'ada_lovelace' },
      });

      // The benefit kicks members on revocation.
      await change(customer.id, benefit.id, {
        action: 'revoke',
        force: true,
        orderId: null,
        subscriptionId: null,
      });
      await holding(customer.id, []);
      assert.equal(discord.rolesOf(guildId, userId), null);

      const forged = await fetch(
        `${api.url}/v1/customer-portal/oauth-accounts/callback?code=x&state=${callback.split('state=')[1]?.slice(1)}`,
        { redirect: 'manual' },
      );
      assert.equal(forged.status, 403);
      const untrusted = await fetch(
        `${api.url}/v1/customer-portal/oauth-accounts/authorize?platform=discord&return_to=https://evil.example/`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      assert.equal(untrusted.status, 422);
    });

    it('moves a granted Discord role when the seller changes the benefit’s role', async () => {
      const guildToken = issueDiscordGuildToken(
        api.config.auth.secret ?? '',
        seller.organizationId,
        guildId,
      );
      const benefit = await seller.polar.benefits.create({
        type: 'discord',
        description: 'Supporters',
        properties: { guildToken, roleId: '100', kickMember: false },
      });
      const customer = await newCustomer();
      const userId = newDiscordUserId();
      discord.addMember(guildId, userId);
      const fork = em();
      fork.create(CustomerOAuthAccount, {
        customer: customer.id,
        platform: 'discord',
        accountId: userId,
      });
      await fork.flush();
      await change(customer.id, benefit.id, {
        action: 'grant',
        orderId: null,
        subscriptionId: null,
      });
      await holding(customer.id, [benefit.id]);
      assert.deepEqual(discord.rolesOf(guildId, userId), ['100']);

      // As the benefit update stores it; the update request goes to this test's worker (the
      // API's would start the workflow on the main queue, whose worker knows no fake Discord).
      const row = await fork.findOneOrFail(Benefit, { id: benefit.id });
      row.properties = { ...row.properties, role_id: '200' };
      await fork.flush();
      await change(customer.id, benefit.id, { action: 'update' });
      await eventually(
        async () => discord.rolesOf(guildId, userId),
        (roles) => roles?.join() === '200',
        { what: 'the role moved' },
      );
      // The grant row is written after Discord answered: the state follows shortly.
      await eventually(
        () => stateOf(customer.id),
        (state) =>
          state.grantedBenefits[0]?.properties !== undefined &&
          'roleId' in state.grantedBenefits[0].properties &&
          state.grantedBenefits[0].properties.roleId === '200',
        { what: 'the state naming the new role' },
      );
      // The update names the role the grant had before.
      const [updated] = await grantEventsOf(customer.id, 'updated');
      assert.ok(updated, 'benefit_grant.updated recorded');
      const { properties, previous_properties } = updated.data as {
        properties: { role_id: string };
        previous_properties: { role_id: string; account_id: string };
      };
      assert.equal(properties.role_id, '200');
      assert.equal(previous_properties.role_id, '100');
      assert.equal(previous_properties.account_id, userId);
    });

    it('finishes a failing grant on the next worker after the worker is stopped', async () => {
      const repositoryName = `restart-${tag()}`;
      const benefit = await seller.polar.benefits.create({
        type: 'github_repository',
        description: 'Source access',
        properties: { repositoryOwner: 'acme', repositoryName, permission: 'pull' },
      });
      const customer = await newCustomer();
      const accountId = String(Math.floor(Math.random() * 1e9));
      github.addUser(accountId, `restart-${accountId}`);
      const fork = em();
      fork.create(CustomerOAuthAccount, {
        customer: customer.id,
        platform: 'github',
        accountId,
        accountUsername: `restart-${accountId}`,
      });
      await fork.flush();

      github.failNext(1000, { status: 503, body: { message: 'Service Unavailable' } });
      await change(customer.id, benefit.id, {
        action: 'grant',
        orderId: null,
        subscriptionId: null,
      });
      await eventually(
        () => grantRow(customer.id, benefit.id),
        (grant) => grant?.error?.type === 'GitHubApiError',
        { what: 'the failure noted on the grant' },
      );
      await worker.stop();
      github.recover();
      await startWorker();

      await holding(customer.id, [benefit.id]);
      assert.deepEqual(github.collaborators('acme', repositoryName), {
        [`restart-${accountId}`]: 'pull',
      });
      assert.equal((await grantRow(customer.id, benefit.id))?.error, null);
    });

    it('records GitHub failures on the grant while retrying, then invites the collaborator', async () => {
      const repositoryName = `engine-${tag()}`;
      const benefit = await seller.polar.benefits.create({
        type: 'github_repository',
        description: 'Source access',
        properties: {
          repositoryOwner: 'acme',
          repositoryName,
          permission: 'push',
        },
      });
      const customer = await newCustomer();
      const accountId = String(Math.floor(Math.random() * 1e9));
      github.addUser(accountId, `octo-${accountId}`);
      const security = { customerSession: await sessionOf(customer.id) };
      await change(customer.id, benefit.id, {
        action: 'grant',
        orderId: null,
        subscriptionId: null,
      });
      const waiting = await eventually(
        () => grantRow(customer.id, benefit.id),
        (grant) => grant !== null,
        { what: 'the grant row' },
      );

      // GitHub is down for the next three calls: the grant notes each failure and retries.
      github.failNext(3, { status: 502, body: { message: 'Server Error' } });
      await seller.polar.customerPortal.benefitGrants.update(security, {
        id: waiting?.id ?? '',
        customerBenefitGrantUpdate: { benefitType: 'github_repository', properties: { accountId } },
      });
      const failing = await eventually(
        () => seller.polar.benefitGrants.list({ customerId: customer.id }),
        (page) => page.result.items[0]?.error != null,
        { what: 'the failure noted on the grant' },
      );
      const error = failing.result.items[0]?.error;
      assert.equal(error?.type, 'GitHubApiError');
      assert.match(error?.message ?? '', /502 Server Error/);
      assert.ok(!Number.isNaN(Date.parse(error?.timestamp ?? '')));
      assert.equal(failing.result.items[0]?.isGranted, false);

      const granted = await eventually(
        () => seller.polar.benefitGrants.list({ customerId: customer.id }),
        (page) => page.result.items[0]?.isGranted === true,
        { what: 'the grant given after the retries', timeoutMs: 60_000 },
      );
      assert.equal(granted.result.items[0]?.error, null);
      assert.deepEqual(github.collaborators('acme', repositoryName), {
        [`octo-${accountId}`]: 'push',
      });

      await change(customer.id, benefit.id, {
        action: 'revoke',
        force: true,
        orderId: null,
        subscriptionId: null,
      });
      await holding(customer.id, []);
      assert.deepEqual(github.collaborators('acme', repositoryName), {});
    });
  });

  it('answers another customer’s grant as not found in the portal', async () => {
    const customer = await newCustomer();
    const other = await createSeller(api);
    const stranger = await other.polar.customers.create({ email: `stranger-${tag()}@example.com` });
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Perk',
      properties: { note: null },
    });
    const product = await productWithBenefits(seller, [benefit.id]);
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
    });
    await holding(customer.id, [benefit.id]);
    const grant = await grantRow(customer.id, benefit.id);
    const strangerSession = (await other.polar.customerSessions.create({ customerId: stranger.id }))
      .token;
    await assert.rejects(
      seller.polar.customerPortal.benefitGrants.update(
        { customerSession: strangerSession },
        { id: grant?.id ?? '', customerBenefitGrantUpdate: { benefitType: 'custom' } },
      ),
      ResourceNotFound,
    );
  });
});
