import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Customer, Subscription, TestClock } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { startTestClockAdvance } from '../../processes/starters.ts';
import { subscriptionStateQuery } from '../../processes/subscription-messages.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { buyerDetails } from '../orders/testing.ts';
import { subscribeCustomerOnClock } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

const january = '2027-01-15T12:00:00.000Z';

describe('test clocks (/v1/test-clocks)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
  });
  after(() => api.close());

  const createClock = async (body: object = { frozen_time: january }) => {
    const created = await callV1(api, seller.token, 'POST', '/v1/test-clocks/', body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const getClock = async (id: string) =>
    (await callV1(api, seller.token, 'GET', `/v1/test-clocks/${id}`)).body;
  const advance = (id: string, frozenTime: string, token = seller.token) =>
    callV1(api, token, 'POST', `/v1/test-clocks/${id}/advance`, { frozen_time: frozenTime });
  const readyClock = (id: string) =>
    eventually(
      () => getClock(id),
      (clock) => clock.status === 'ready',
      { what: `test clock ${id} ready` },
    );

  /** A customer of the seller on `clockId`, created through the raw API (the SDK lacks the field). */
  const clockCustomer = async (clockId: string) => {
    const details = buyerDetails();
    const created = await callV1(api, seller.token, 'POST', '/v1/customers/', {
      email: details.customerEmail,
      test_clock_id: clockId,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return { customer: created.body, details };
  };

  /** A monthly subscription bought by a new customer on `clockId`. */
  const subscribeOnClock = async (clockId: string) => {
    const plan = await seller.polar.products.create({
      name: 'Clocked plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const { subscriptionId } = await subscribeCustomerOnClock(api, seller, plan.id, clockId);
    return seller.polar.subscriptions.get({ id: subscriptionId });
  };

  it('creates a clock frozen at the given time, and reads it back', async () => {
    const clock = await createClock({ name: 'Renewals', frozen_time: january });
    assert.equal(clock.name, 'Renewals');
    assert.equal(clock.frozen_time, january);
    assert.equal(clock.status, 'ready');
    assert.ok(clock.created_at);
    assert.deepEqual(await getClock(clock.id), clock);
  });

  it('freezes a clock created without a time at the moment it is created', async () => {
    const before = Date.now();
    const clock = await createClock({});
    assert.equal(clock.name, null);
    assert.ok(Date.parse(clock.frozen_time) >= before - 1_000);
  });

  it('lists the organization’s clocks, newest first by default', async () => {
    const lister = await createSeller(api);
    const create = async (name: string) =>
      (await callV1(api, lister.token, 'POST', '/v1/test-clocks/', { name })).body;
    const first = await create('b first');
    const second = await create('a second');
    const ids = async (query: string) =>
      (await callV1(api, lister.token, 'GET', `/v1/test-clocks/${query}`)).body.items.map(
        (clock: { id: string }) => clock.id,
      );
    assert.deepEqual(await ids(''), [second.id, first.id]);
    assert.deepEqual(await ids('?sorting=created_at'), [first.id, second.id]);
    assert.deepEqual(await ids('?sorting=name'), [second.id, first.id]);
    assert.deepEqual(await ids('?limit=1&page=2'), [first.id]);
  });

  it('advances: answers at once advancing, then the clock is ready at its new time', async () => {
    const clock = await createClock();
    const later = '2027-03-01T00:00:00.000Z';
    const advanced = await advance(clock.id, later);
    assert.equal(advanced.status, 200);
    assert.equal(advanced.body.frozen_time, later);
    assert.equal(advanced.body.status, 'advancing');
    const ready = await readyClock(clock.id);
    assert.equal(ready.frozen_time, later);
  });

  it('advances when retried after an attempt whose workflow started but whose commit failed', async () => {
    const clock = await createClock();
    const later = '2027-02-01T00:00:00.000Z';
    // What the failed attempt left: its workflow, waiting for a commit that never came.
    await startTestClockAdvance(api.temporal, { testClockId: clock.id, frozenTime: later });
    const retried = await advance(clock.id, later);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal((await readyClock(clock.id)).frozen_time, later);
  });

  it('refuses to move a clock backwards, to stand still, or more than two years at once', async () => {
    const clock = await createClock();
    for (const frozenTime of ['2027-01-01T00:00:00.000Z', january, '2029-01-16T00:00:00.000Z']) {
      const refused = await advance(clock.id, frozenTime);
      assert.equal(refused.status, 422, frozenTime);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'frozen_time']);
    }
    assert.equal((await getClock(clock.id)).frozen_time, january);
  });

  it('refuses to advance a clock that is still advancing', async () => {
    const clock = await createClock();
    await api.orm.em.fork().nativeUpdate(TestClock, { id: clock.id }, { status: 'advancing' });
    const refused = await advance(clock.id, '2027-02-01T00:00:00.000Z');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'TestClockAdvancing');
    assert.equal((await getClock(clock.id)).frozen_time, january);
  });

  it('deletes a clock; its customers fall back to real time', async () => {
    const clock = await createClock();
    const { customer } = await clockCustomer(clock.id);
    const deleted = await callV1(api, seller.token, 'DELETE', `/v1/test-clocks/${clock.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(
      (await callV1(api, seller.token, 'GET', `/v1/test-clocks/${clock.id}`)).status,
      404,
    );
    const row = await api.orm.em.fork().findOneOrFail(Customer, customer.id);
    assert.equal(row.testClock, null);
  });

  it('refuses to delete a clock that still drives a live subscription', async () => {
    const clock = await createClock();
    await subscribeOnClock(clock.id);
    const refused = await callV1(api, seller.token, 'DELETE', `/v1/test-clocks/${clock.id}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'TestClockInUse');
    assert.equal((await getClock(clock.id)).id, clock.id);
  });

  it('keeps organizations apart: another seller’s token finds no clock', async () => {
    const clock = await createClock();
    const path = `/v1/test-clocks/${clock.id}`;
    assert.equal((await callV1(api, other.token, 'GET', path)).status, 404);
    assert.equal((await advance(clock.id, '2027-02-01T00:00:00.000Z', other.token)).status, 404);
    assert.equal((await callV1(api, other.token, 'DELETE', path)).status, 404);
    const listed = await callV1(api, other.token, 'GET', '/v1/test-clocks/');
    assert.equal(listed.body.pagination.total_count, 0);
    assert.equal((await getClock(clock.id)).frozen_time, january);
  });

  it('attaches a new customer to a clock of the organization, not to another’s', async () => {
    const clock = await createClock();
    const { customer } = await clockCustomer(clock.id);
    assert.equal('test_clock_id' in customer, false, 'Polar’s Customer has no such field');
    const row = await api.orm.em.fork().findOneOrFail(Customer, customer.id);
    assert.equal(row.testClock?.id, clock.id);
    const refused = await callV1(api, other.token, 'POST', '/v1/customers/', {
      email: buyerDetails().customerEmail,
      test_clock_id: clock.id,
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'test_clock_id']);
  });

  it('starts the subscription of a clock customer at the clock’s frozen time', async () => {
    const clock = await createClock();
    const subscription = await subscribeOnClock(clock.id);
    assert.equal(subscription.currentPeriodStart.toISOString(), january);
    assert.equal(subscription.startedAt?.toISOString(), january);
    assert.equal(subscription.currentPeriodEnd?.toISOString(), '2027-02-15T12:00:00.000Z');
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscription.id);
    assert.equal(row.testClock?.id, clock.id);
  });

  it('advancing tells the workflow of every live subscription on the clock its new time', async () => {
    const clock = await createClock();
    const subscription = await subscribeOnClock(clock.id);
    const later = '2027-01-20T00:00:00.000Z';
    assert.equal((await advance(clock.id, later)).status, 200);
    await readyClock(clock.id);
    const workflow = api.temporal.workflow.getHandle(workflowIds.subscription(subscription.id));
    const state = await eventually(
      () => workflow.query(subscriptionStateQuery),
      (state) => state.schedule.testClock?.frozenTime === later,
      { what: 'the subscription workflow at the clock’s new time' },
    );
    assert.equal(state.schedule.testClock?.id, clock.id);
  });
});

describe('test clocks outside a sandbox', () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    const config = loadRuntimeConfig();
    api = await startApiServer(
      { ...config, testClocks: { enabled: false } },
      { host: '127.0.0.1', port: 0 },
    );
    seller = await createSeller(api);
  });
  after(() => api.close());

  it('answers 403 TestClockNotAvailable on every test clock route', async () => {
    const id = crypto.randomUUID();
    for (const [method, path, body] of [
      ['POST', '/v1/test-clocks/', {}],
      ['GET', '/v1/test-clocks/', undefined],
      ['GET', `/v1/test-clocks/${id}`, undefined],
      ['DELETE', `/v1/test-clocks/${id}`, undefined],
      ['POST', `/v1/test-clocks/${id}/advance`, { frozen_time: january }],
    ] as const) {
      const answer = await callV1(api, seller.token, method, path, body);
      assert.equal(answer.status, 403, `${method} ${path}`);
      assert.equal(answer.body.error, 'TestClockNotAvailable');
    }
  });

  it('refuses to attach a customer to a test clock', async () => {
    const refused = await callV1(api, seller.token, 'POST', '/v1/customers/', {
      email: buyerDetails().customerEmail,
      test_clock_id: crypto.randomUUID(),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'TestClockNotAvailable');
  });
});
