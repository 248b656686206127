import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  Customer,
  CustomerSession,
  CustomerSignInLink,
  Organization,
  Product,
  Subscription,
  TestClock,
} from '../../db/entities/index.ts';
import { purgeExpiredRecordsState } from '../../processes/purge-expired-records.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { startTestApi } from '../testing.ts';
import {
  assertExpiredAuthRecordsPurged,
  opsSessionToken,
  randomTokenHash,
  seedExpiringAuthRecords,
} from './ops-testing.ts';

const hour = 3600_000;

describe('purge of expired records: API → workflow → activity → database', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  const headers = { authorization: '', 'content-type': 'application/json' };
  before(async () => {
    api = await startTestApi();
    headers.authorization = `Bearer ${await opsSessionToken(api, { admin: true })}`;
  });
  after(() => api.close());

  it('deletes what expired before the cut-off and nothing else', async () => {
    // A cut-off of its own, far from "now", so other tests' rows are not in play.
    const cutOff = new Date(Date.UTC(2001, 0, 1, 12));
    const records = await seedExpiringAuthRecords(api.orm, cutOff);

    const response = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: cutOff.toISOString() }),
    });
    assert.equal(response.status, 202);
    const started = (await response.json()) as { workflowId: string; runId: string };
    assert.equal(started.workflowId, workflowIds.purgeExpiredRecords(cutOff));

    const result = await api.temporal.workflow.getHandle(started.workflowId).result();
    assert.equal(result.stage, 'done');
    assert.equal(result.sessionsDeleted, 1);
    assert.equal(result.verificationsDeleted, 1);

    await assertExpiredAuthRecordsPurged(api.orm, records);

    // The workflow's query and the API's read of it agree with the result.
    const queried = await api.temporal.workflow
      .getHandle(started.workflowId)
      .query(purgeExpiredRecordsState);
    assert.deepEqual(queried, result);
    const read = await fetch(
      `${api.url}/api/ops/maintenance/purge-expired/${cutOff.toISOString()}`,
      { headers },
    );
    assert.deepEqual(await read.json(), result);
  });

  it('joins the running workflow when the same request is retried', async () => {
    const before = new Date(Date.UTC(2002, 5, 1)).toISOString();
    const start = () =>
      fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ before }),
      }).then((response) => response.json() as Promise<{ workflowId: string; runId: string }>);
    const [first, second] = await Promise.all([start(), start()]);
    assert.equal(first.workflowId, second.workflowId);
    assert.equal(first.runId, second.runId);
  });

  it('deletes the customer portal’s expired sessions and spent sign-in links, and mail records past their use', async () => {
    // After the other tests' cut-offs (2001, 2002): their purges never reach these rows.
    const cutOff = new Date(Date.UTC(2004, 0, 1));
    const daysBefore = (days: number) => new Date(cutOff.getTime() - days * 24 * hour);
    const later = new Date(Date.now() + hour);
    const em = api.orm.em.fork();
    const tag = randomBytes(4).toString('hex');
    const organization = em.create(Organization, { name: `Purge ${tag}`, slug: `purge-${tag}` });
    const customer = em.create(Customer, { organization, email: `buyer-${tag}@example.com` });
    const clock = em.create(TestClock, { organization, frozenTime: daysBefore(300) });
    const clockCustomer = em.create(Customer, {
      organization,
      email: `clock-${tag}@example.com`,
      testClock: clock,
    });
    const product = em.create(Product, { organization, name: 'Plan' });
    const subscriptionOf = (owner: Customer, testClock: TestClock | null) =>
      em.create(Subscription, {
        organization,
        customer: owner,
        product,
        status: 'active',
        amount: 900,
        currency: 'usd',
        recurringInterval: 'month',
        currentPeriodStart: daysBefore(400),
        testClock,
      });
    const subscription = subscriptionOf(customer, null);
    const clockSubscription = subscriptionOf(clockCustomer, clock);
    const session = (expiresAt: Date) =>
      em.create(CustomerSession, { customer, tokenHash: randomTokenHash(), expiresAt });
    const expiredSession = session(daysBefore(1));
    const liveSession = session(later);
    const link = (expiresAt: Date, usedAt: Date | null) =>
      em.create(CustomerSignInLink, {
        customer,
        email: customer.email,
        tokenHash: randomTokenHash(),
        expiresAt,
        usedAt,
      });
    const expiredLink = link(daysBefore(1), null);
    const usedLink = link(later, daysBefore(1));
    const usableLink = link(later, null);
    await em.flush();

    const sql = (query: string, params: unknown[]) => em.execute(query, params);
    const claim = (id: string, owner: Customer, createdAt: Date) =>
      sql(`insert into customer_mails (id, customer_id, kind, created_at) values (?, ?, 'x', ?)`, [
        `${id}-${tag}`,
        owner.id,
        createdAt,
      ]);
    await claim('old', customer, daysBefore(91));
    await claim('recent', customer, daysBefore(89));
    // A test clock can keep a reminder due for months: its customers' claims stay.
    await claim('old-on-clock', clockCustomer, daysBefore(200));
    const marked = async (handledAt: Date) => {
      const [event] = await em.execute<{ id: string }[]>(
        `insert into outbox_events (id, organization_id, type, data, created_at)
         values (gen_random_uuid(), ?, 'product.created', '{}', ?) returning id`,
        [organization.id, handledAt],
      );
      await sql(`insert into customer_mail_events (event_id, handled_at) values (?, ?)`, [
        event?.id,
        handledAt,
      ]);
      return event?.id;
    };
    const oldMark = await marked(daysBefore(3));
    const recentMark = await marked(daysBefore(1));
    const check = (owner: Subscription, renewsAt: Date) =>
      sql(
        `insert into card_expiry_checks (subscription_id, payment_method_id, renews_at)
         values (?, 'pm_card_visa', ?)`,
        [owner.id, renewsAt],
      );
    await check(subscription, daysBefore(1));
    await check(subscription, later);
    // Ahead of its test clock's time, however long ago by the wall clock: still to come.
    await check(clockSubscription, daysBefore(100));

    const response = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: cutOff.toISOString() }),
    });
    assert.equal(response.status, 202);
    const { workflowId } = (await response.json()) as { workflowId: string };
    const result = await api.temporal.workflow.getHandle(workflowId).result();
    assert.equal(result.stage, 'done');
    assert.equal(result.customerSessionsDeleted, 1);
    assert.equal(result.customerSignInLinksDeleted, 2);
    assert.equal(result.customerMailRecordsDeleted, 3);

    const after = api.orm.em.fork();
    const sessionIds = (await after.find(CustomerSession, { customer })).map(({ id }) => id);
    assert.deepEqual(sessionIds, [liveSession.id]);
    assert.equal(await after.count(CustomerSession, { id: expiredSession.id }), 0);
    const linkIds = (await after.find(CustomerSignInLink, { customer })).map(({ id }) => id);
    assert.deepEqual(linkIds, [usableLink.id]);
    assert.ok(![expiredLink.id, usedLink.id].some((id) => linkIds.includes(id)));
    const claims = await after.execute<{ id: string }[]>(
      `select id from customer_mails where id like ? order by id`,
      [`%-${tag}`],
    );
    assert.deepEqual(
      claims.map(({ id }) => id),
      [`old-on-clock-${tag}`, `recent-${tag}`],
    );
    const marks = await after.execute<{ event_id: string }[]>(
      `select event_id from customer_mail_events where event_id in (?, ?)`,
      [oldMark, recentMark],
    );
    assert.deepEqual(
      marks.map(({ event_id }) => event_id),
      [recentMark],
    );
    const checks = await after.execute<{ subscription_id: string }[]>(
      `select subscription_id from card_expiry_checks where subscription_id in (?, ?)
       order by renews_at`,
      [subscription.id, clockSubscription.id],
    );
    assert.deepEqual(
      checks.map(({ subscription_id }) => subscription_id),
      [clockSubscription.id, subscription.id],
    );
  });

  it('refuses callers without an admin session: none, a user’s, the retired operations token', async () => {
    const user = await opsSessionToken(api, { admin: false });
    const attempts: [string | undefined, number, string][] = [
      [undefined, 401, 'UNAUTHORIZED'],
      ['Bearer wrong', 401, 'UNAUTHORIZED'],
      [`Bearer ${process.env.TOLLGATE_OPS_TOKEN}`, 401, 'UNAUTHORIZED'],
      [`Bearer ${user}`, 403, 'FORBIDDEN'],
    ];
    for (const [authorization, status, code] of attempts) {
      const response = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
        body: '{}',
      });
      assert.equal(response.status, status, authorization);
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
  });

  it('answers 400 for a malformed cut-off or a body that is not JSON, 413 for a huge one', async () => {
    const malformed = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: 'yesterday' }),
    });
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { code: string }).code, 'VALIDATION_ERROR');
    const notJson = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: '{"before":',
    });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { code: string }).code, 'INVALID_REQUEST_BODY');
    const huge = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
  });
});
