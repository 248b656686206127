import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  Benefit,
  BenefitGrant,
  Customer,
  CustomerMeter,
  Meter,
  OutboxEvent,
} from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** The 422 the SDK raised: where and why the first refused field was refused. */
function firstIssue(error: unknown) {
  assert.ok(error instanceof HTTPValidationError, String(error));
  const [issue] = error.detail ?? [];
  return { loc: issue?.loc, msg: issue?.msg };
}

async function refusedWith(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    return firstIssue(error);
  }
  assert.fail('expected a 422');
}

describe('customers (/v1/customers)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  /** An address no other test uses. */
  const freshEmail = (name = 'buyer') => `${name}-${randomUUID().slice(0, 8)}@example.com`;

  const events = (type: string, organizationId = seller.organizationId) =>
    api.orm.em.fork().find(OutboxEvent, { organization: organizationId, type });

  const customerCount = (organizationId: string) =>
    api.orm.em.fork().count(Customer, { organization: organizationId });

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  it('creates a customer with a normalised address and tax id, and records customer.created', async () => {
    const email = freshEmail('ada');
    const externalId = `crm-${randomUUID()}`;
    const created = await seller.polar.customers.create({
      email,
      name: 'Ada Lovelace',
      externalId,
      billingAddress: {
        line1: '1 Rue de Rivoli',
        postalCode: '75001',
        city: 'Paris',
        country: 'FR',
      },
      taxId: ['FR 61 954 506 077', 'eu_vat'],
      metadata: { plan: 'gold', seats: 3 },
    });
    assert.equal(created.email, email);
    assert.equal(created.organizationId, seller.organizationId);
    assert.deepEqual(created.taxId, ['FR61954506077', 'eu_vat']);
    assert.equal(created.billingAddress?.postalCode, '75001');
    assert.equal(created.billingAddress?.state, null);
    assert.deepEqual(created.metadata, { plan: 'gold', seats: 3 });
    assert.equal(created.emailVerified, false);
    assert.equal(created.modifiedAt, null);
    assert.equal(created.deletedAt, null);
    assert.match(
      created.avatarUrl,
      /^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=identicon$/,
    );

    const fetched = await seller.polar.customers.get({ id: created.id });
    assert.deepEqual(fetched, created);
    const byExternalId = await seller.polar.customers.getExternal({ externalId });
    assert.equal(byExternalId.id, created.id);

    const [event] = (await events('customer.created')).filter((e) => e.data.id === created.id);
    assert.equal(event?.data.email, email);
    assert.deepEqual(event?.data.tax_id, ['FR61954506077', 'eu_vat']);
  });

  it('stores US and Canadian states as ISO subdivisions, from the bare code too', async () => {
    const created = await seller.polar.customers.create({
      email: freshEmail(),
      billingAddress: { line1: '1 Market St', city: 'San Francisco', state: 'ca', country: 'US' },
      taxId: ['12-3456789', 'us_ein'],
    });
    assert.equal(created.billingAddress?.state, 'US-CA');
    assert.deepEqual(created.taxId, ['123456789', 'us_ein']);
  });

  it('updates fields, sets the external id once and records customer.updated and customer.state_changed', async () => {
    const created = await seller.polar.customers.create({ email: freshEmail(), name: 'Old' });
    assert.equal(created.externalId, null);
    const externalId = `set-once-${randomUUID()}`;
    const updated = await seller.polar.customers.update({
      id: created.id,
      customerUpdate: {
        name: 'New',
        externalId,
        metadata: { tier: 2 },
        billingAddress: { country: 'GB', city: 'London' },
        taxId: ['GB980780684', 'gb_vat'],
      },
    });
    assert.equal(updated.name, 'New');
    assert.equal(updated.externalId, externalId);
    assert.deepEqual(updated.metadata, { tier: 2 });
    assert.deepEqual(updated.taxId, ['GB980780684', 'gb_vat']);
    assert.ok(updated.modifiedAt instanceof Date);

    const [event] = (await events('customer.updated')).filter((e) => e.data.id === created.id);
    assert.equal(event?.data.name, 'New');
    // The state view shows the customer: one state, as updated.
    const states = (await events('customer.state_changed')).filter((e) => e.data.id === created.id);
    assert.deepEqual(
      states.map((state) => [state.data.name, state.data.external_id]),
      [['New', externalId]],
    );

    const emailChanged = await seller.polar.customers.update({
      id: created.id,
      customerUpdate: { email: freshEmail('renamed') },
    });
    assert.equal(emailChanged.name, 'New', 'absent fields keep their value');
    assert.equal(emailChanged.externalId, externalId);
  });

  it('refuses to change an external id once set, or to clear a billing address', async () => {
    const externalId = `fixed-${randomUUID()}`;
    const created = await seller.polar.customers.create({
      email: freshEmail(),
      externalId,
      billingAddress: { country: 'DE' },
    });
    assert.deepEqual(
      await refusedWith(
        seller.polar.customers.update({ id: created.id, customerUpdate: { externalId: 'other' } }),
      ),
      { loc: ['body', 'external_id'], msg: 'Customer external ID cannot be updated.' },
    );
    assert.deepEqual(
      await refusedWith(
        seller.polar.customers.update({ id: created.id, customerUpdate: { billingAddress: null } }),
      ),
      {
        loc: ['body', 'billing_address'],
        msg: 'Customer billing address cannot be reset to null once set.',
      },
    );
    const unchanged = await seller.polar.customers.get({ id: created.id });
    assert.equal(unchanged.externalId, externalId);
    assert.equal(unchanged.billingAddress?.country, 'DE');
  });

  it('validates a tax id against the billing country, on create and on update', async () => {
    const noCountry = await refusedWith(
      seller.polar.customers.create({ email: freshEmail(), taxId: ['FR61954506077', 'eu_vat'] }),
    );
    assert.deepEqual(noCountry, {
      loc: ['body', 'billing_address'],
      msg: 'Country is required to validate tax ID.',
    });
    const wrongCountry = await refusedWith(
      seller.polar.customers.create({
        email: freshEmail(),
        billingAddress: { country: 'DE' },
        taxId: ['FR61954506077', 'eu_vat'],
      }),
    );
    assert.deepEqual(wrongCountry, { loc: ['body', 'tax_id'], msg: 'Invalid tax ID.' });

    // Moving a French customer to Germany invalidates the tax id it keeps.
    const french = await seller.polar.customers.create({
      email: freshEmail(),
      billingAddress: { country: 'FR' },
      taxId: ['FR61954506077', 'eu_vat'],
    });
    const moved = await refusedWith(
      seller.polar.customers.update({
        id: french.id,
        customerUpdate: { billingAddress: { country: 'DE' } },
      }),
    );
    assert.deepEqual(moved, { loc: ['body', 'tax_id'], msg: 'Invalid tax ID.' });
    const cleared = await seller.polar.customers.update({
      id: french.id,
      customerUpdate: { billingAddress: { country: 'DE' }, taxId: null },
    });
    assert.equal(cleared.taxId, null);
    assert.equal(cleared.billingAddress?.country, 'DE');
  });

  it('refuses a taken email (in any case) or external id with 422 at the field', async () => {
    const email = freshEmail('taken');
    const externalId = `taken-${randomUUID()}`;
    const first = await seller.polar.customers.create({ email, externalId });
    assert.deepEqual(
      await refusedWith(seller.polar.customers.create({ email: email.toUpperCase() })),
      { loc: ['body', 'email'], msg: 'A customer with this email address already exists.' },
    );
    assert.deepEqual(
      await refusedWith(seller.polar.customers.create({ email: freshEmail(), externalId })),
      { loc: ['body', 'external_id'], msg: 'A customer with this external ID already exists.' },
    );
    const second = await seller.polar.customers.create({ email: freshEmail() });
    assert.deepEqual(
      await refusedWith(
        seller.polar.customers.update({ id: second.id, customerUpdate: { email } }),
      ),
      { loc: ['body', 'email'], msg: 'A customer with this email address already exists.' },
    );
    assert.deepEqual(
      await refusedWith(
        seller.polar.customers.update({ id: second.id, customerUpdate: { externalId } }),
      ),
      { loc: ['body', 'external_id'], msg: 'A customer with this external ID already exists.' },
    );
    // Another organization has its own customers: the same email is free there.
    const elsewhere = await other.polar.customers.create({ email, externalId });
    assert.notEqual(elsewhere.id, first.id);
  });

  it('lets exactly one of many simultaneous creations with one email through', async () => {
    const email = freshEmail('race');
    const attempts = await Promise.all(
      Array.from({ length: 8 }, () =>
        callV1(api, seller.token, 'POST', '/v1/customers/', { email }),
      ),
    );
    const statuses = attempts.map((attempt) => attempt.status).sort();
    assert.deepEqual(statuses, [201, 422, 422, 422, 422, 422, 422, 422]);
    const refused = attempts.find((attempt) => attempt.status === 422);
    assert.equal(refused?.body.error, 'PolarRequestValidationError');
    assert.deepEqual(refused?.body.detail[0].loc, ['body', 'email']);
  });

  it('refuses bad input with 422 at its path and writes nothing', async () => {
    const before = await customerCount(seller.organizationId);
    const longKey = 'k'.repeat(41);
    const manyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`key${i}`, i]));
    const cases: [body: Record<string, unknown>, loc: (string | number)[]][] = [
      [{ email: 'not-an-email' }, ['body', 'email']],
      [{}, ['body', 'email']],
      [
        { email: freshEmail(), billing_address: { country: 'XX' } },
        ['body', 'billing_address', 'country'],
      ],
      [
        { email: freshEmail(), billing_address: { country: 'RU' } },
        ['body', 'billing_address', 'country'],
      ],
      [
        { email: freshEmail(), billing_address: { country: 'US', state: 'ZZ' } },
        ['body', 'billing_address', 'state'],
      ],
      [
        {
          email: freshEmail(),
          billing_address: { country: 'AU' },
          tax_id: ['83 914 571 674', 'au_abn'],
        },
        ['body', 'tax_id'],
      ],
      [{ email: freshEmail(), tax_id: ['123', 'not_a_format'] }, ['body', 'tax_id', 1]],
      [{ email: freshEmail(), metadata: manyKeys }, ['body', 'metadata']],
      [{ email: freshEmail(), metadata: { [longKey]: 'x' } }, ['body', 'metadata', longKey]],
      [{ email: freshEmail(), organization_id: other.organizationId }, ['body', 'organization_id']],
    ];
    for (const [body, loc] of cases) {
      const refused = await callV1(api, seller.token, 'POST', '/v1/customers/', body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, loc, JSON.stringify(body));
    }
    assert.equal(await customerCount(seller.organizationId), before);

    const created = await seller.polar.customers.create({ email: freshEmail() });
    const badUpdate = await callV1(api, seller.token, 'PATCH', `/v1/customers/${created.id}`, {
      name: 'Changed',
      email: 'nope',
    });
    assert.equal(badUpdate.status, 422);
    assert.deepEqual(badUpdate.body.detail[0].loc, ['body', 'email']);
    assert.equal((await seller.polar.customers.get({ id: created.id })).name, null);
  });

  it('answers the state of a fresh customer with three empty lists', async () => {
    const created = await seller.polar.customers.create({ email: freshEmail() });
    const state = await seller.polar.customers.getState({ id: created.id });
    assert.equal(state.id, created.id);
    assert.equal(state.email, created.email);
    assert.deepEqual(state.activeSubscriptions, []);
    assert.deepEqual(state.grantedBenefits, []);
    assert.deepEqual(state.activeMeters, []);
  });

  it('answers current benefit grants and meters in the state, by id and by external id', async () => {
    const externalId = `stateful-${randomUUID()}`;
    const created = await seller.polar.customers.create({ email: freshEmail(), externalId });
    const em = api.orm.em.fork();
    const organization = seller.organizationId;
    const [granted, revoked, pending] = ['Support', 'Old perk', 'Not yet'].map((description) =>
      em.create(Benefit, {
        organization,
        type: 'custom',
        description,
        properties: { note: null },
        metadata: { perk: description },
      }),
    ) as [Benefit, Benefit, Benefit];
    const grant = em.create(BenefitGrant, {
      customer: created.id,
      benefit: granted,
      grantedAt: new Date(),
      properties: {},
    });
    em.create(BenefitGrant, {
      customer: created.id,
      benefit: revoked,
      grantedAt: new Date(),
      revokedAt: new Date(),
    });
    em.create(BenefitGrant, { customer: created.id, benefit: pending });
    const meter = em.create(Meter, {
      organization,
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    const customerMeter = em.create(CustomerMeter, {
      customer: created.id,
      meter,
      consumedUnits: '2.5',
      creditedUnits: 10,
    });
    await em.flush();

    const state = await seller.polar.customers.getState({ id: created.id });
    assert.deepEqual(
      state.grantedBenefits.map((benefit) => [benefit.id, benefit.benefitId, benefit.benefitType]),
      [[grant.id, granted.id, 'custom']],
    );
    assert.deepEqual(state.grantedBenefits[0]?.benefitMetadata, { perk: 'Support' });
    assert.deepEqual(state.activeMeters, [
      {
        id: customerMeter.id,
        createdAt: customerMeter.createdAt,
        modifiedAt: null,
        meterId: meter.id,
        consumedUnits: 2.5,
        creditedUnits: 10,
        balance: 7.5,
      },
    ]);
    const byExternalId = await seller.polar.customers.getStateExternal({ externalId });
    assert.deepEqual(byExternalId, state);
  });

  it('answers a state that follows every change, however often it was read before', async () => {
    const created = await seller.polar.customers.create({ email: freshEmail(), name: 'Before' });
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Priority support',
      properties: { note: 'Write to us' },
    });
    const em = api.orm.em.fork();
    em.create(BenefitGrant, {
      customer: created.id,
      benefit: benefit.id,
      grantedAt: new Date(),
      properties: {},
    });
    await em.flush();
    const read = () => seller.polar.customers.getState({ id: created.id });
    assert.equal((await read()).grantedBenefits.length, 1);
    assert.equal((await read()).name, 'Before');

    await seller.polar.customers.update({ id: created.id, customerUpdate: { name: 'After' } });
    assert.equal((await read()).name, 'After');

    // Deleting the benefit revokes its grants through their workflows: the state drops it.
    await seller.polar.benefits.delete({ id: benefit.id });
    await eventually(read, (state) => state.grantedBenefits.length === 0, {
      what: 'the grant gone from the state',
    });

    await seller.polar.customers.delete({ id: created.id });
    await assert.rejects(read(), ResourceNotFound);
  });

  it('gets, updates and deletes by external id', async () => {
    const externalId = `user/${randomUUID()}`;
    const created = await seller.polar.customers.create({ email: freshEmail(), externalId });
    const updated = await seller.polar.customers.updateExternal({
      externalId,
      customerUpdateExternalID: { name: 'By external id' },
    });
    assert.equal(updated.id, created.id);
    assert.equal(updated.name, 'By external id');
    await seller.polar.customers.deleteExternal({ externalId });
    await assert.rejects(seller.polar.customers.getExternal({ externalId }), ResourceNotFound);
  });

  it('deletes softly: not found afterwards, email and external id free, grants revoked', async () => {
    const email = freshEmail('leaving');
    const externalId = `leaving-${randomUUID()}`;
    const created = await seller.polar.customers.create({ email, externalId });
    const em = api.orm.em.fork();
    const benefit = em.create(Benefit, {
      organization: seller.organizationId,
      type: 'custom',
      description: 'Perk',
      properties: { note: null },
    });
    const grant = em.create(BenefitGrant, { customer: created.id, benefit, grantedAt: new Date() });
    await em.flush();

    const deleted = await callV1(api, seller.token, 'DELETE', `/v1/customers/${created.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    await assert.rejects(seller.polar.customers.get({ id: created.id }), ResourceNotFound);
    await assert.rejects(seller.polar.customers.getState({ id: created.id }), ResourceNotFound);
    await assert.rejects(seller.polar.customers.delete({ id: created.id }), ResourceNotFound);

    const row = await api.orm.em.fork().findOneOrFail(Customer, { id: created.id });
    assert.ok(row.deletedAt instanceof Date);
    await eventually(
      () => api.orm.em.fork().findOneOrFail(BenefitGrant, { id: grant.id }),
      (revoked) => revoked.revokedAt instanceof Date,
      { what: 'the grant revoked' },
    );
    const [event] = (await events('customer.deleted')).filter((e) => e.data.id === created.id);
    assert.equal(typeof event?.data.deleted_at, 'string');

    const again = await seller.polar.customers.create({ email, externalId });
    assert.notEqual(again.id, created.id);
  });

  describe('listing', () => {
    let shop: Seller;
    const names = ['Charlie Brown', 'Alice Smith', 'Bob Stone', 'Dana White'];

    before(async () => {
      shop = await createSeller(api);
      for (const [index, name] of names.entries()) {
        const first = name.split(' ')[0]?.toLowerCase();
        await shop.polar.customers.create({
          email: `${first}@shop-${index % 2 ? 'odd' : 'even'}.example.com`,
          name,
          externalId: `crm-${1000 + index}`,
          metadata: { group: index % 2 ? 'odd' : 'even', rank: index },
        });
      }
      const gone = await shop.polar.customers.create({ email: 'gone@shop-even.example.com' });
      await shop.polar.customers.delete({ id: gone.id });
    });

    const listNames = async (request: Parameters<Seller['polar']['customers']['list']>[0]) => {
      const page = await shop.polar.customers.list(request);
      return page.result.items.map((customer) => customer.name);
    };

    it('lists live customers, newest first by default', async () => {
      const page = await shop.polar.customers.list({});
      assert.equal(page.result.pagination.totalCount, 4);
      assert.deepEqual(
        page.result.items.map((customer) => customer.name),
        [...names].reverse(),
      );
    });

    it('searches email, name and external id case-insensitively', async () => {
      assert.deepEqual(await listNames({ query: 'SHOP-ODD' }), ['Dana White', 'Alice Smith']);
      assert.deepEqual(await listNames({ query: 'stone' }), ['Bob Stone']);
      assert.deepEqual(await listNames({ query: 'crm-1002' }), ['Bob Stone']);
      assert.deepEqual(await listNames({ query: '100%' }), []);
      assert.deepEqual(await listNames({ query: 'gone' }), []);
    });

    it('filters by exact email in any case, and by metadata', async () => {
      assert.deepEqual(await listNames({ email: 'BOB@shop-even.example.com' }), ['Bob Stone']);
      assert.deepEqual(await listNames({ email: 'bob@shop' }), []);
      assert.deepEqual(await listNames({ metadata: { group: 'odd' }, sorting: ['name'] }), [
        'Alice Smith',
        'Dana White',
      ]);
      assert.deepEqual(
        await listNames({ metadata: { rank: ['0', '3'] }, sorting: ['created_at'] }),
        ['Charlie Brown', 'Dana White'],
      );
    });

    it('sorts by email or name, either way, and refuses an unknown criterion', async () => {
      assert.deepEqual(await listNames({ sorting: ['email'] }), [
        'Alice Smith',
        'Bob Stone',
        'Charlie Brown',
        'Dana White',
      ]);
      assert.deepEqual(await listNames({ sorting: ['-name'] }), [
        'Dana White',
        'Charlie Brown',
        'Bob Stone',
        'Alice Smith',
      ]);
      const refused = await callV1(api, shop.token, 'GET', '/v1/customers/?sorting=age');
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['query', 'sorting']);
    });

    it('pages through with the SDK', async () => {
      const first = await shop.polar.customers.list({ limit: 3, sorting: ['created_at'] });
      assert.equal(first.result.pagination.maxPage, 2);
      const second = await first.next();
      assert.deepEqual(
        second?.result.items.map((customer) => customer.name),
        ['Dana White'],
      );
    });

    it('exports every live customer as a JSON array', async () => {
      const exported = await shop.polar.customers.export({});
      assert.ok(Array.isArray(exported));
      assert.deepEqual(
        exported.map((customer: { name: string }) => customer.name),
        names,
      );
      const foreign = await shop.polar.customers.export({ organizationId: other.organizationId });
      assert.deepEqual(foreign, []);
    });
  });

  it('answers a zero balance in usd', async () => {
    const created = await seller.polar.customers.create({ email: freshEmail() });
    assert.deepEqual(await seller.polar.customers.getBalance({ id: created.id }), {
      balance: 0,
      currency: 'usd',
    });
  });

  it("never reads or changes another organization's customer: it is simply not found", async () => {
    const externalId = `private-${randomUUID()}`;
    const theirs = await other.polar.customers.create({ email: freshEmail(), externalId });
    const customers = seller.polar.customers;
    const refusals = [
      () => customers.get({ id: theirs.id }),
      () => customers.update({ id: theirs.id, customerUpdate: { name: 'Taken over' } }),
      () => customers.getState({ id: theirs.id }),
      () => customers.getBalance({ id: theirs.id }),
      () => customers.delete({ id: theirs.id }),
      () => customers.getExternal({ externalId }),
      () =>
        customers.updateExternal({ externalId, customerUpdateExternalID: { name: 'Taken over' } }),
      () => customers.getStateExternal({ externalId }),
      () => customers.deleteExternal({ externalId }),
    ];
    for (const refusal of refusals) await assert.rejects(refusal, ResourceNotFound);
    const untouched = await other.polar.customers.get({ id: theirs.id });
    assert.equal(untouched.name, null);
    assert.equal(untouched.deletedAt, null);
    const listed = await seller.polar.customers.list({ query: externalId });
    assert.deepEqual(listed.result.items, []);
  });

  it('answers a malformed id with 422 at path.id, and an unknown one with 404', async () => {
    const malformed = await callV1(api, seller.token, 'GET', '/v1/customers/not-a-uuid');
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['path', 'id']);
    await assert.rejects(seller.polar.customers.get({ id: randomUUID() }), ResourceNotFound);
  });
});
