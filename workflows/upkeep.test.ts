import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import {
  assertExpiredAuthRecordsPurged,
  opsSessionToken,
  seedExpiringAuthRecords,
} from '../api/routes/ops-testing.ts';
import { uploadLifetimeMs } from '../commerce/files/service.ts';
import { buy } from '../commerce/orders/testing.ts';
import { advanceTestClock, subscribeOnTestClock } from '../commerce/subscriptions/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../commerce/testing.ts';
import { Payment, StoredFile, Subscription } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { capturedMailsTo, waitForMail } from '../integrations/mail/testing.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { type UpkeepJob, upkeepScheduleIds, upkeepWorkflowTypes } from '../processes/upkeep.ts';
import { ensureUpkeepSchedules } from '../processes/upkeep-schedules.ts';

const hour = 3600_000;

describe('upkeep: Temporal Schedules the worker creates, each job run by triggering it', () => {
  let api: TestApi;
  let seller: Seller;
  let admin: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    admin = await opsSessionToken(api, { admin: true });
  });
  after(() => api.close());

  /** Triggers the job's schedule once, as its interval would, and answers its run's result. */
  async function runOnce<Result>(job: UpkeepJob): Promise<Result> {
    const schedule = api.temporal.schedule.getHandle(upkeepScheduleIds[job]);
    const taken = (await schedule.describe()).info.numActionsTaken;
    await schedule.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
    const described = await eventually(
      () => schedule.describe(),
      (description) => description.info.numActionsTaken > taken,
    );
    const started = described.info.recentActions.at(-1)?.action.workflow;
    assert.ok(started);
    assert.ok(started.workflowId.startsWith(upkeepScheduleIds[job]));
    return api.temporal.workflow
      .getHandle(started.workflowId, started.firstExecutionRunId)
      .result();
  }

  it('has one schedule per job after the worker started; creating them again keeps one each', async () => {
    for (const job of Object.keys(upkeepScheduleIds) as UpkeepJob[]) {
      const described = await api.temporal.schedule.getHandle(upkeepScheduleIds[job]).describe();
      assert.equal(described.action.workflowType, upkeepWorkflowTypes[job]);
    }
    const { upkeep } = api.config;
    // A second worker starting, then one with another interval: the same schedules, updated.
    await ensureUpkeepSchedules(api.temporal, upkeep);
    await ensureUpkeepSchedules(api.temporal, { ...upkeep, purgeIntervalSeconds: 7200 });
    try {
      const purge = await api.temporal.schedule
        .getHandle(upkeepScheduleIds.purgeExpired)
        .describe();
      assert.equal(Number(purge.spec.intervals?.[0]?.every), 7200_000);
      const ids: string[] = [];
      for await (const schedule of api.temporal.schedule.list()) ids.push(schedule.scheduleId);
      for (const id of Object.values(upkeepScheduleIds)) {
        assert.equal(ids.filter((listed) => listed === id).length, 1, id);
      }
    } finally {
      await ensureUpkeepSchedules(api.temporal, upkeep);
    }
    const restored = await api.temporal.schedule
      .getHandle(upkeepScheduleIds.purgeExpired)
      .describe();
    assert.equal(Number(restored.spec.intervals?.[0]?.every), upkeep.purgeIntervalSeconds * 1000);
  });

  it('the purge deletes expired sessions and verification tokens, and keeps live ones', async () => {
    const records = await seedExpiringAuthRecords(api.orm, new Date());

    const result = await runOnce<{ sessionsDeleted: number; verificationsDeleted: number }>(
      'purgeExpired',
    );
    assert.ok(result.sessionsDeleted >= 1);
    assert.ok(result.verificationsDeleted >= 1);
    await assertExpiredAuthRecordsPurged(api.orm, records);
  });

  it('expires an upload abandoned past its lifetime, not a recent one', async () => {
    const em = api.orm.em.fork();
    const file = (createdAt: Date) =>
      em.create(StoredFile, {
        organization: seller.organizationId,
        name: 'draft.zip',
        path: `upkeep/${randomBytes(6).toString('hex')}`,
        mimeType: 'application/zip',
        size: 10,
        service: 'downloadable',
        createdAt,
      });
    const abandoned = file(new Date(Date.now() - uploadLifetimeMs - hour));
    const recent = file(new Date(Date.now() - hour));
    await em.flush();

    const result = await runOnce<{ uploadsDeleted: number }>('expireUploads');
    assert.ok(result.uploadsDeleted >= 1);
    const check = api.orm.em.fork();
    assert.equal(await check.count(StoredFile, { id: abandoned.id }), 0);
    assert.equal(await check.count(StoredFile, { id: recent.id }), 1);
  });

  it('mails a card-expiry reminder once, however often the schedule runs', async () => {
    const plan = await seller.polar.products.create({
      name: 'Annual plan',
      recurringInterval: 'year',
      prices: [{ amountType: 'fixed', priceAmount: 12_000 }],
    });
    const yearly = await subscribeOnTestClock(api, seller, plan.id, '2027-02-01T10:00:00Z');
    // Six days before the renewal, with a card that ends before it.
    await advanceTestClock(api, seller, yearly.clockId, '2028-01-26T10:00:00Z');
    const subscription = await api.orm.em
      .fork()
      .findOneOrFail(Subscription, yearly.subscriptionId, { populate: ['customer'] });
    await stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '').setCardExpiry(
      subscription.customer.stripeCustomerId as string,
      subscription.stripePaymentMethodId as string,
      { expMonth: 12, expYear: 2027 },
    );
    const subject = /^Update your card before your Annual plan renewal$/;

    await runOnce('customerReminders');
    const mail = await waitForMail({ to: yearly.email, subject, timeoutMs: 20_000 });
    assert.match(mail.text, /Visa card ending in 4242 \(valid through 12\/2027\)/);
    await runOnce('customerReminders');
    await sleep(1500);
    assert.equal((await capturedMailsTo(yearly.email, subject)).length, 1);
  });

  it('reconciliation records a payment Stripe took without an order, and an amount that differs', async () => {
    const product = await seller.polar.products.create({
      name: 'Reconciled guide',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
    });
    const { order } = await buy(api, seller, product.id);
    assert.ok(order);
    // Taken at Stripe directly: no checkout, no order.
    const stripe = createStripeClient(api.config.stripe);
    const stray = await stripe.paymentIntents.create({
      amount: 4321,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    assert.equal(stray.status, 'succeeded');

    const mismatches = async () => {
      const response = await fetch(`${api.url}/api/ops/reconciliation/mismatches?limit=500`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      assert.equal(response.status, 200);
      const { items } = (await response.json()) as {
        items: { id: string; kind: string; paymentIntentId: string | null; stripeAmount: number }[];
      };
      return items;
    };
    const payment = await api.orm.em.fork().findOneOrFail(Payment, { order: order.id });
    assert.ok(payment.processorId);

    await runOnce('reconcilePayments');
    const found = await mismatches();
    const strayMismatch = found.find((item) => item.paymentIntentId === stray.id);
    assert.equal(strayMismatch?.kind, 'paid_without_order');
    assert.equal(strayMismatch?.stripeAmount, 4321);
    assert.ok(!found.some((item) => item.paymentIntentId === payment.processorId));

    // The order's payment recorded for less than Stripe took.
    await api.orm.em.fork().nativeUpdate(Payment, { id: payment.id }, { amount: 100 });
    await runOnce('reconcilePayments');
    const again = await mismatches();
    const differs = again.find((item) => item.paymentIntentId === payment.processorId);
    assert.equal(differs?.kind, 'amount_differs');
    assert.equal(again.filter((item) => item.paymentIntentId === stray.id).length, 1);

    // Put right: the next run clears it.
    await api.orm.em.fork().nativeUpdate(Payment, { id: payment.id }, { amount: payment.amount });
    await runOnce('reconcilePayments');
    assert.ok(!(await mismatches()).some((item) => item.paymentIntentId === payment.processorId));
  });

  it('the operations API shows the schedules to an admin, runs one, and refuses anyone else', async () => {
    const user = await opsSessionToken(api, { admin: false });
    const refused = await fetch(`${api.url}/api/ops/upkeep`, {
      headers: { authorization: `Bearer ${user}` },
    });
    assert.equal(refused.status, 403);
    const anonymous = await fetch(`${api.url}/api/ops/reconciliation/mismatches`);
    assert.equal(anonymous.status, 401);

    const listed = await fetch(`${api.url}/api/ops/upkeep`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(listed.status, 200);
    const { items } = (await listed.json()) as { items: { job: string; everySeconds: number }[] };
    assert.deepEqual(
      items.map(({ job, everySeconds }) => [job, everySeconds]),
      [
        ['purgeExpired', api.config.upkeep.purgeIntervalSeconds],
        ['expireUploads', api.config.upkeep.uploadsIntervalSeconds],
        ['customerReminders', api.config.upkeep.remindersIntervalSeconds],
        ['reconcilePayments', api.config.upkeep.reconciliationIntervalSeconds],
      ],
    );

    const schedule = api.temporal.schedule.getHandle(upkeepScheduleIds.expireUploads);
    const taken = (await schedule.describe()).info.numActionsTaken;
    const triggered = await fetch(`${api.url}/api/ops/upkeep/expireUploads/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(triggered.status, 202);
    await eventually(
      () => schedule.describe(),
      (description) => description.info.numActionsTaken > taken,
    );
    const unknown = await fetch(`${api.url}/api/ops/upkeep/mining/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(unknown.status, 400);

    // A session cookie sent from a page of another origin: refused (cross-site forgery).
    const forged = await fetch(`${api.url}/api/ops/upkeep/expireUploads/trigger`, {
      method: 'POST',
      headers: { cookie: `better-auth.session_token=${admin}`, origin: 'https://evil.example' },
    });
    assert.equal(forged.status, 403);
  });
});
