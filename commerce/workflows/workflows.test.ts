import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { buy, buyerClient, buyerDetails, settledCheckout } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { HistoryDigest, type HistoryEventJson, timelineLimit } from './history.ts';

interface TimelineEvent {
  type: string;
  summary: string;
}

describe('workflow insight (/v1/workflows)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let ebookId: string;
  let planId: string;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const plan = await seller.polar.products.create({
      name: 'Monthly plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    ebookId = ebook.id;
    planId = plan.id;
  });
  after(() => api.close());

  const insight = (kind: string, entityId: string, token = seller.token) =>
    callV1(api, token, 'GET', `/v1/workflows/${kind}/${entityId}`);

  /** A new customer's subscription to the monthly plan, renewing on real time. */
  const subscribe = async (owner: Seller, productId: string) => {
    const { order } = await buy(api, owner, productId);
    assert.ok(order?.subscriptionId, 'the checkout started a subscription');
    return owner.polar.subscriptions.get({ id: order.subscriptionId });
  };

  it("shows a paid checkout's workflow completed, its charge activity in the timeline", async () => {
    const { checkout } = await buy(api, seller, ebookId);
    assert.equal(checkout.status, 'succeeded');
    const { body } = await eventually(
      () => insight('checkout', checkout.id),
      (answer) => answer.status === 200 && answer.body.status === 'completed',
      { what: `checkout ${checkout.id} workflow completed` },
    );
    assert.equal(body.workflow_id, `checkout:${checkout.id}`);
    assert.equal(body.type, 'checkout');
    assert.equal(body.entity_id, checkout.id);
    assert.ok(body.close_time, 'a completed workflow has a close time');
    assert.equal(body.state, null);
    assert.deepEqual(body.waiting_for, { activities: [], timers: [] });
    assert.deepEqual(body.failures, []);
    const timeline: TimelineEvent[] = body.timeline;
    assert.equal(body.history_length, timeline.length + body.timeline_omitted);
    assert.deepEqual(
      timeline
        .filter((event) => event.summary.includes('createCheckoutPayment'))
        .map(({ type, summary }) => ({ type, summary })),
      [
        { type: 'activity_task_scheduled', summary: 'activity createCheckoutPayment scheduled' },
        {
          type: 'activity_task_started',
          summary: 'activity createCheckoutPayment started, attempt 1',
        },
        { type: 'activity_task_completed', summary: 'activity createCheckoutPayment completed' },
      ],
    );
    assert.ok(
      timeline.some((event) => event.summary === 'update confirmCheckout accepted'),
      'the buyer’s confirm is in the timeline',
    );
    assert.equal(timeline.at(-1)?.type, 'workflow_execution_completed');
  });

  it('answers a running subscription’s state query, its renewal timer and the messages it takes', async () => {
    const subscription = await subscribe(seller, planId);
    const { body } = await eventually(
      () => insight('subscription', subscription.id),
      (answer) => answer.status === 200 && answer.body.waiting_for.timers.length === 1,
      { what: `subscription ${subscription.id} waiting for its renewal` },
    );
    assert.equal(body.status, 'running');
    assert.equal(body.close_time, null);
    assert.equal(body.state.schedule.status, 'active');
    assert.equal(body.state.nextAction.kind, 'renewal');
    assert.equal(body.state.nextAction.at, subscription.currentPeriodEnd?.toISOString());
    const [timer] = body.waiting_for.timers;
    const firesIn = Date.parse(timer.fires_at) - Date.parse(body.state.nextAction.at);
    assert.ok(Math.abs(firesIn) < 60_000, `the timer fires at the renewal (${timer.fires_at})`);
    assert.ok(body.waiting_for.updates.includes('changeSubscription'));
    assert.ok(body.waiting_for.signals.includes('paymentOutcome'));
  });

  it('shows a charge Stripe keeps failing as a pending activity with its last failure', async () => {
    const created = await seller.polar.checkouts.create({ products: [ebookId] });
    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    // Three failed attempts (each the SDK's request and its two retries), then the charge passes.
    await simulator.injectFault({
      path: '/v1/payment_intents',
      method: 'POST',
      bodyIncludes: created.id,
      mode: 'error',
      count: 9,
    });
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: buyerDetails(),
    });
    const { body } = await eventually(
      () => insight('checkout', created.id),
      (answer) => answer.body.waiting_for?.activities.some(isFailingCharge),
      { what: `checkout ${created.id} charge retried` },
    );
    const charge = body.waiting_for.activities.find(isFailingCharge);
    assert.ok(charge.attempt > 1);
    assert.ok(
      body.failures.some(
        (failure: { source: string; activity_type: string; message: string }) =>
          failure.source === 'activity' &&
          failure.activity_type === 'createCheckoutPayment' &&
          failure.message === charge.last_failure,
      ),
      'the failed attempt is among the failures',
    );
    assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
  });

  it("keeps organizations apart: another organization's token gets 404", async () => {
    const { checkout } = await buy(api, seller, ebookId);
    const foreign = await insight('checkout', checkout.id, other.token);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'ResourceNotFound');
    assert.equal((await insight('checkout', randomUUID())).status, 404);
  });

  it('answers 404 with a clear detail for an entity whose workflow never started', async () => {
    // An endpoint gets its workflow with its first event; this organization has none yet.
    const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
      url: 'https://hooks.example.com/polar',
      format: 'raw',
      events: ['order.refunded'],
    });
    const answer = await insight('webhook_endpoint', endpoint.id);
    assert.equal(answer.status, 404);
    assert.match(answer.body.detail, /never started/);
  });

  it('refuses an unknown kind, a malformed id, or a token without the kind’s read scope', async () => {
    const unknownKind = await insight('payout', randomUUID());
    assert.equal(unknownKind.status, 422);
    assert.equal((await insight('checkout', 'not-a-uuid')).status, 422);
    const ordersOnly = await createSeller(api, { scopes: ['orders:read'] });
    const refused = await insight('checkout', randomUUID(), ordersOnly.token);
    assert.equal(refused.status, 403);
    const list = await callV1(
      api,
      seller.token,
      'GET',
      '/v1/workflows/?type=subscription&status=asleep',
    );
    assert.equal(list.status, 422);
  });

  it('lists running subscription workflows of the caller only', async () => {
    const [mine, theirs] = await Promise.all([
      subscribe(seller, planId),
      other.polar.products
        .create({
          name: 'Other plan',
          recurringInterval: 'month',
          prices: [{ amountType: 'fixed', priceAmount: 500 }],
        })
        .then((plan) => subscribe(other, plan.id)),
    ]);
    const list = (owner: Seller) =>
      callV1(api, owner.token, 'GET', '/v1/workflows/?type=subscription&status=running&limit=100');
    const { body } = await eventually(
      () => list(seller),
      (answer) =>
        answer.body.items.some((item: { entity_id: string }) => item.entity_id === mine.id),
      { what: `subscription ${mine.id} listed` },
    );
    const ids = body.items.map((item: { entity_id: string }) => item.entity_id);
    assert.ok(!ids.includes(theirs.id), 'another organization’s subscription is not listed');
    assert.ok(body.items.every((item: { status: string }) => item.status === 'running'));
    assert.equal(body.pagination.total_count, body.items.length);
    const item = body.items.find((found: { entity_id: string }) => found.entity_id === mine.id);
    assert.equal(item.workflow_id, `subscription:${mine.id}`);
    assert.equal(item.kind, 'subscription');
    const theirList = await list(other);
    assert.ok(
      theirList.body.items.every((found: { entity_id: string }) => found.entity_id !== mine.id),
    );
  });

  it('links to the Temporal Web UI page of the run when a UI URL is configured', async () => {
    const { checkout } = await buy(api, seller, ebookId);
    const config = loadRuntimeConfig({
      ...process.env,
      TEMPORAL_UI_URL: 'http://temporal-ui.test/',
    });
    const withUi = await startApiServer(config, { host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`${withUi.url}/v1/workflows/checkout/${checkout.id}`, {
        headers: { authorization: `Bearer ${seller.token}` },
      });
      const body = (await response.json()) as { web_ui_url: string; run_id: string };
      assert.equal(
        body.web_ui_url,
        `http://temporal-ui.test/namespaces/${config.temporal.namespace}/workflows/` +
          `checkout%3A${checkout.id}/${body.run_id}/history`,
      );
    } finally {
      await withUi.close();
    }
  });
});

describe('history digest', () => {
  const recorded = (name: string): HistoryEventJson[] =>
    JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../workflows/__fixtures__/histories', `${name}.json`),
        'utf8',
      ),
    ).events;

  it('summarizes local activities, updates and timers, and drops fired or canceled timers', () => {
    const digest = new HistoryDigest();
    for (const event of recorded('checkout-trial-subscription')) digest.add(event);
    const summaries = digest.timeline.map((event) => event.summary);
    assert.ok(summaries.includes('local activity confirmCheckout completed, attempt 1'));
    assert.ok(summaries.includes('timer 1 canceled'));
    assert.ok(summaries.includes('patch save-card-without-charge'));
    assert.deepEqual(digest.pendingTimers, []);
    assert.equal(digest.timeline.at(-1)?.summary, 'completed');
  });

  it(`keeps the last ${timelineLimit} events and counts the ones left out`, () => {
    const digest = new HistoryDigest();
    for (let id = 1; id <= timelineLimit + 5; id += 1) {
      digest.add({
        eventId: String(id),
        eventTime: '2027-01-01T00:00:00Z',
        eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED',
        workflowExecutionSignaledEventAttributes: { signalName: 'ping' },
      });
    }
    assert.equal(digest.timeline.length, timelineLimit);
    assert.equal(digest.timelineOmitted, 5);
    assert.equal(digest.timeline[0]?.event_id, 6);
    assert.equal(digest.timeline[0]?.summary, 'signal ping');
  });
});

/** A pending charge whose previous attempt failed. */
const isFailingCharge = (activity: { activity_type: string; last_failure: string | null }) =>
  activity.activity_type === 'createCheckoutPayment' && activity.last_failure !== null;
