import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Meter } from '@polar-sh/sdk/models/components/meter.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { eventually } from '../../devstack/eventually.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('customer portal meters (/v1/customer-portal/meters)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let calls: Meter;
  let tokens: Meter;

  /** A meter of `owner` counting (or summing `tokens` of) the events named `name`. */
  const meterOf = (owner: Seller, name: string, sum = false) =>
    owner.polar.meters.create({
      name,
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: name }],
      },
      aggregation: sum ? { func: 'sum', property: 'tokens' } : { func: 'count' },
    });

  /** A new customer of `owner` with a portal session. */
  async function customerWithSession(owner: Seller) {
    const customer = await owner.polar.customers.create({
      email: `buyer-${randomUUID().slice(0, 8)}@example.com`,
    });
    const session = await owner.polar.customerSessions.create({ customerId: customer.id });
    return { customer, security: { customerSession: session.token } };
  }

  /** The customer's standing on each meter, once every one of `meterIds` shows its usage. */
  const standingsOf = (owner: Seller, customerId: string, meterIds: string[]) =>
    eventually(
      async () => (await owner.polar.customerMeters.list({ customerId })).result.items,
      (items) => meterIds.every((id) => items.some((item) => item.meterId === id)),
      { what: `customer ${customerId}'s meters` },
    );

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    [calls, tokens] = await Promise.all([
      meterOf(seller, 'api_calls'),
      meterOf(seller, 'llm_tokens', true),
    ]);
  });
  after(() => api.close());

  it('lists and gets only the customer’s own meters, the meter named only', async () => {
    const own = await customerWithSession(seller);
    const stranger = await customerWithSession(seller);
    const timestamp = new Date(Date.now() - 60_000);
    await seller.polar.events.ingest({
      events: [
        { name: 'api_calls', customerId: own.customer.id, timestamp },
        { name: 'api_calls', customerId: own.customer.id, timestamp },
        { name: 'llm_tokens', customerId: own.customer.id, timestamp, metadata: { tokens: 120 } },
        { name: 'api_calls', customerId: stranger.customer.id, timestamp },
      ],
    });
    const standings = await standingsOf(seller, own.customer.id, [calls.id, tokens.id]);
    const [strangers] = await standingsOf(seller, stranger.customer.id, [calls.id]);
    assert.ok(strangers);
    const polar = seller.polar.customerPortal.customerMeters;

    const page = await polar.list(own.security, { sorting: ['meter_name'] });
    assert.equal(page.result.pagination.totalCount, 2);
    assert.deepEqual(
      page.result.items.map((item) => [item.meter.name, item.consumedUnits, item.balance]),
      [
        ['api_calls', 2, -2],
        ['llm_tokens', 120, -120],
      ],
    );
    const callsStanding = standings.find((item) => item.meterId === calls.id);
    assert.ok(callsStanding);
    const got = await polar.get(own.security, { id: callsStanding.id });
    assert.equal(got.customerId, own.customer.id);
    assert.equal(got.meterId, calls.id);
    assert.equal(got.creditedUnits, 0);
    assert.deepEqual(Object.keys(got.meter).sort(), ['createdAt', 'id', 'modifiedAt', 'name']);
    // The wire holds no customer, and no meter filter or aggregation.
    const raw = await callV1(
      api,
      own.security.customerSession,
      'GET',
      `/v1/customer-portal/meters/${callsStanding.id}`,
    );
    assert.equal(raw.status, 200);
    assert.ok(!('customer' in raw.body));
    assert.deepEqual(Object.keys(raw.body.meter).sort(), [
      'created_at',
      'id',
      'modified_at',
      'name',
    ]);

    const ids = async (request: Parameters<typeof polar.list>[1]) =>
      (await polar.list(own.security, request)).result.items.map((item) => item.meterId);
    assert.deepEqual(await ids({ meterId: tokens.id }), [tokens.id]);
    assert.deepEqual(await ids({ query: 'API_' }), [calls.id]);
    assert.deepEqual(await ids({ query: '%' }), []);
    assert.deepEqual(await ids({ sorting: ['-meter_name'] }), [tokens.id, calls.id]);

    // Another customer's standing: not found, and listed through no filter.
    await assert.rejects(polar.get(own.security, { id: strangers.id }), ResourceNotFound);
    assert.deepEqual(
      (await polar.list(stranger.security, { meterId: tokens.id })).result.items,
      [],
    );
    const theirs = await polar.list(stranger.security, {});
    assert.deepEqual(
      theirs.result.items.map((item) => item.id),
      [strangers.id],
    );
  });

  it('keeps other organizations’ customers out, and answers bad queries 422', async () => {
    const own = await customerWithSession(seller);
    const outsider = await customerWithSession(other);
    await seller.polar.events.ingest({
      events: [{ name: 'api_calls', customerId: own.customer.id }],
    });
    const [standing] = await standingsOf(seller, own.customer.id, [calls.id]);
    assert.ok(standing);
    const polar = seller.polar.customerPortal.customerMeters;
    await assert.rejects(polar.get(outsider.security, { id: standing.id }), ResourceNotFound);
    assert.equal(
      (await polar.list(outsider.security, { meterId: calls.id })).result.pagination.totalCount,
      0,
    );

    const token = own.security.customerSession;
    for (const query of ['sorting=balance', 'meter_id=calls', 'sorting=customer_name']) {
      const refused = await callV1(api, token, 'GET', `/v1/customer-portal/meters/?${query}`);
      assert.equal(refused.status, 422, query);
    }
    const badId = await callV1(api, token, 'GET', '/v1/customer-portal/meters/not-an-id');
    assert.equal(badId.status, 422);
    const anonymous = await callV1(api, null, 'GET', '/v1/customer-portal/meters/');
    assert.equal(anonymous.status, 401);
  });
});
