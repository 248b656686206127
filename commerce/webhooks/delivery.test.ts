import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import pg from 'pg';
import { createWebhookActivities } from '../../activities/webhooks.ts';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { createLogger } from '../../config/logger.ts';
import { User, WebhookEndpoint, WebhookEvent } from '../../db/entities/index.ts';
import { migrateToLatest, openOrm } from '../../db/orm.ts';
import { eventually } from '../../devstack/eventually.ts';
import { dropDatabase, ensureDatabase } from '../../devstack/postgres.ts';
import type { WebhookDeliverySettings } from '../../domain/webhooks.ts';
import { waitForMail } from '../../integrations/mail/testing.ts';
import { relayLockKey, WebhookRelay } from '../../processes/webhook-relay.ts';
import { workersOnOwnQueue } from '../../temporal/testing.ts';
import { appendEvent } from '../outbox.ts';
import { callV1, createSeller, type Seller } from '../testing.ts';
import { isInternalAddress } from './address-guard.ts';
import { postWebhook } from './post.ts';
import { signWebhook } from './signing.ts';
import { type Receiver, type ReceiverHandler, startReceiver } from './testing.ts';

Runtime.install({ logger: new DefaultLogger('WARN') });

// Retries after 100 ms, 200 ms, 300 ms: the schedule's shape, without its days. A fourth
// consecutive failure disables the endpoint.
const settings: WebhookDeliverySettings = {
  retryDelaysMs: [100, 200, 300],
  timeoutMs: 30_000,
  guardAddresses: false,
  dashboardUrl: 'http://tollgate.test/dashboard',
};

/**
 * A database of its own, the API on it, and a relay and worker on a task queue of their own
 * with the short schedule: the test run's worker process knows neither, so nothing else
 * delivers these events, and the worker can be stopped mid-delivery.
 */
async function startWebhookStack() {
  const config = loadRuntimeConfig();
  const databaseUrl = new URL(config.database.url);
  databaseUrl.pathname = `${databaseUrl.pathname}_webhooks_${process.pid}`;
  const url = databaseUrl.toString();
  await ensureDatabase(url);
  const migrating = await openOrm(url);
  await migrateToLatest(migrating);
  await migrating.close();
  const stackConfig = { ...config, database: { ...config.database, url } };
  const api = await startApiServer(stackConfig, { host: '127.0.0.1', port: 0 });
  // Workflows on one queue; deliveries on another, whose worker the tests stop, kill, restart.
  const workers = await workersOnOwnQueue(api, 'webhooks');
  const { taskQueue } = workers;
  const workflowWorker = await workers.start();
  const deliveryTaskQueue = `${taskQueue}-deliveries`;
  const startDeliveries = async () => {
    const worker = await Worker.create({
      connection: workers.connection,
      namespace: config.temporal.namespace,
      taskQueue: deliveryTaskQueue,
      dataConverter: workers.dataConverter,
      activities: createWebhookActivities(api.orm),
    });
    return { worker, running: worker.run() };
  };
  let deliveries: Awaited<ReturnType<typeof startDeliveries>> | undefined = await startDeliveries();
  const stopDeliveries = async () => {
    deliveries?.worker.shutdown();
    await deliveries?.running;
    deliveries = undefined;
  };
  const relay = new WebhookRelay({
    databaseUrl: url,
    temporal: api.temporal,
    logger: createLogger('webhook-relay', 'warn'),
    workflowTaskQueue: taskQueue,
    deliveryTaskQueue,
    settings,
    pollIntervalMs: 1000,
  });
  await relay.start();
  return {
    api,
    databaseUrl: url,
    deliveryTaskQueue,
    /** Stops the delivery worker: its round in flight is cancelled (and runs again later). */
    stopDeliveries,
    startDeliveries: async () => {
      deliveries = await startDeliveries();
    },
    close: async () => {
      await relay.close();
      await stopDeliveries();
      await workflowWorker.stop();
      await workers.close();
      await api.close();
      await dropDatabase(url);
    },
  };
}

describe('webhook delivery: retries, order, faults', () => {
  let stack: Awaited<ReturnType<typeof startWebhookStack>>;
  let seller: Seller;
  const receivers: Receiver[] = [];

  before(async () => {
    stack = await startWebhookStack();
  });
  // Each test sells under an organization of its own: its events reach only its endpoints.
  beforeEach(async () => {
    seller = await createSeller(stack.api);
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await stack.close();
  });

  const receiver = async (handler?: ReceiverHandler) => {
    const started = await startReceiver(handler);
    receivers.push(started);
    return started;
  };

  const endpointFor = async (target: Receiver, events = ['product.updated' as const]) =>
    seller.polar.webhooks.createWebhookEndpoint({ url: target.url, format: 'raw', events });

  /** Appends `product.updated` events numbered `from`.. in one transaction, in that order. */
  const appendEvents = (from: number, count: number) =>
    stack.api.orm.em.fork().transactional(async (tx) => {
      for (let seq = from; seq < from + count; seq++) {
        appendEvent(tx, seller.organizationId, 'product.updated', { id: `p${seq}`, seq });
      }
    });

  /** The `seq` of each successfully answered delivery, in the order they arrived. */
  const deliveredSeqs = (target: Receiver, succeeded: (count: number) => boolean) =>
    target.received.flatMap((webhook, index) =>
      succeeded(index + 1) ? [JSON.parse(webhook.body).data.seq as number] : [],
    );

  /** Resolves once `count` of an endpoint's events are recorded as delivered. */
  const recordedDelivered = (endpointId: string, count: number, what: string) =>
    eventually(
      () => stack.api.orm.em.fork().count(WebhookEvent, { endpoint: endpointId, succeeded: true }),
      (delivered) => delivered === count,
      { what },
    );

  const deliveryLog = async (endpointId: string) =>
    (
      await callV1(
        stack.api,
        seller.token,
        'GET',
        `/v1/webhooks/deliveries?endpoint_id=${endpointId}&limit=100`,
      )
    ).body.items as {
      succeeded: boolean;
      http_code: number | null;
      response: string | null;
      error: string | null;
      attempt: number;
      webhook_event: { id: string; succeeded: boolean | null };
    }[];

  it('retries a failing receiver on the schedule until it recovers, holding later events back', async () => {
    // The first three attempts fail (500), then the receiver recovers.
    const flaky = await receiver((_request, response, count) => {
      response.statusCode = count <= 3 ? 500 : 200;
      response.end(count <= 3 ? 'down' : 'ok');
    });
    const endpoint = await endpointFor(flaky);
    await appendEvents(1, 1);
    await appendEvents(2, 2);
    await flaky.receivedAtLeast(6, 'the recovered deliveries');
    assert.deepEqual(
      deliveredSeqs(flaky, (count) => count > 3),
      [1, 2, 3],
    );
    assert.deepEqual(
      flaky.received.slice(0, 4).map((webhook) => JSON.parse(webhook.body).data.seq),
      [1, 1, 1, 1],
      'nothing after the failing event is sent before it succeeds',
    );
    const log = await deliveryLog(endpoint.id);
    const first = log.filter(
      (entry) => entry.webhook_event.id === flaky.received[0]?.headers['webhook-id'],
    );
    assert.deepEqual(
      first.map((entry) => [entry.attempt, entry.http_code, entry.succeeded]).reverse(),
      [
        [1, 500, false],
        [2, 500, false],
        [3, 500, false],
        [4, 200, true],
      ],
    );
    assert.equal(first[1]?.response, 'down');
    const stored = await stack.api.orm.em.fork().findOneOrFail(WebhookEndpoint, endpoint.id);
    assert.equal(stored.consecutiveFailures, 0, 'a success ends the run of failures');
    assert.equal(stored.enabled, true);
  });

  it('delivers in append order per endpoint, across failures and transactions', async () => {
    // Every fourth request fails: its event is retried before any later one.
    const choppy = await receiver((_request, response, count) => {
      response.statusCode = count % 4 === 0 ? 503 : 204;
      response.end();
    });
    await endpointFor(choppy);
    await appendEvents(1, 20);
    await appendEvents(21, 5);
    await appendEvents(26, 5);
    await eventually(
      () => deliveredSeqs(choppy, (count) => count % 4 !== 0).length,
      (delivered) => delivered >= 30,
      // Eight failures, each waiting on a Temporal timer: seconds on a loaded machine.
      { what: 'thirty deliveries', timeoutMs: 60_000 },
    );
    const expected = Array.from({ length: 30 }, (_, index) => index + 1);
    assert.deepEqual(
      deliveredSeqs(choppy, (count) => count % 4 !== 0),
      expected,
    );
  });

  it('keeps append order while a mail relay holds an older event (key-share lock)', async () => {
    const target = await receiver();
    await endpointFor(target);
    const relayTurn = new pg.Client({ connectionString: stack.databaseUrl });
    const mailClaim = new pg.Client({ connectionString: stack.databaseUrl });
    await Promise.all([relayTurn.connect(), mailClaim.connect()]);
    try {
      // The relay waits for its turn while the older event is claimed by a mail relay's open
      // transaction and a newer event commits.
      await relayTurn.query('select pg_advisory_lock($1)', [relayLockKey]);
      await appendEvents(1, 1);
      const older = await relayTurn.query<{ id: string }>(
        `select id from outbox_events where organization_id = $1 and data->>'seq' = '1'`,
        [seller.organizationId],
      );
      await mailClaim.query('begin');
      await mailClaim.query('insert into customer_mail_events (event_id) values ($1)', [
        older.rows[0]?.id,
      ]);
      await appendEvents(2, 1);
      await relayTurn.query('select pg_advisory_unlock($1)', [relayLockKey]);
      await target.receivedAtLeast(2, 'both events, the claim still open');
      await mailClaim.query('commit');
    } finally {
      await mailClaim.query('rollback').catch(() => undefined);
      await Promise.all([relayTurn.end(), mailClaim.end()]);
    }
    assert.deepEqual(
      deliveredSeqs(target, () => true),
      [1, 2],
    );
  });

  it('replays a time range of an endpoint in its original order (Tollgate API)', async () => {
    const target = await receiver();
    const endpoint = await endpointFor(target);
    const start = new Date();
    await appendEvents(1, 5);
    await recordedDelivered(endpoint.id, 5, 'the first deliveries, recorded');
    const replay = await callV1(
      stack.api,
      seller.token,
      'POST',
      `/v1/webhooks/endpoints/${endpoint.id}/replay`,
      { start_timestamp: start.toISOString(), end_timestamp: new Date().toISOString() },
    );
    assert.equal(replay.status, 202);
    assert.deepEqual(replay.body, { requeued: 5 });
    await target.receivedAtLeast(10, 'the replay');
    assert.deepEqual(
      deliveredSeqs(target, () => true),
      [1, 2, 3, 4, 5, 1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      target.received.slice(5).map((webhook) => webhook.headers['webhook-id']),
      target.received.slice(0, 5).map((webhook) => webhook.headers['webhook-id']),
      'the same webhook events, by id',
    );
  });

  it('disables an endpoint past the threshold, mails the owners, and resumes when re-enabled', async () => {
    let healthy = false;
    const broken = await receiver((_request, response) => {
      response.statusCode = healthy ? 200 : 500;
      response.end();
    });
    const endpoint = await endpointFor(broken);
    await appendEvents(1, 2);
    const owner = await stack.api.orm.em.fork().findOneOrFail(User, seller.ownerId);
    const mail = await waitForMail({ to: owner.email, subject: /Webhook endpoint disabled/ });
    assert.match(mail.text, new RegExp(endpoint.url.replace(/[.:/]/g, '\\$&')));
    // Four attempts: the first and the schedule's three retries, all on the oldest event.
    assert.equal(broken.received.length, 4);
    const read = await callV1(
      stack.api,
      seller.token,
      'GET',
      `/v1/webhooks/endpoints/${endpoint.id}`,
    );
    assert.equal(read.body.enabled, false);

    // Events keep their place while the endpoint is off, and flow once it is on again.
    healthy = true;
    const enabled = await callV1(
      stack.api,
      seller.token,
      'PATCH',
      `/v1/webhooks/endpoints/${endpoint.id}`,
      { enabled: true },
    );
    assert.equal(enabled.body.enabled, true);
    await broken.receivedAtLeast(6, 'the queued events');
    assert.deepEqual(
      deliveredSeqs(broken, (count) => count > 4),
      [1, 2],
    );
  });

  it('a hanging endpoint does not delay another', async () => {
    const hanging: ServerResponse[] = [];
    let released = false;
    const stuck = await receiver((_request, response) => {
      if (released) response.end('ok');
      else hanging.push(response);
    });
    const quick = await receiver();
    await endpointFor(stuck);
    await endpointFor(quick);
    await appendEvents(1, 3);
    await quick.receivedAtLeast(3, 'the other endpoint’s deliveries');
    // Its first request may arrive after the other endpoint's three: wait for it, then no more.
    await stuck.receivedAtLeast(1, 'the stuck endpoint’s first delivery');
    assert.equal(stuck.received.length, 1, 'the stuck endpoint still waits for its first answer');
    assert.equal(hanging.length, 1);
    released = true;
    for (const response of hanging) response.end('finally');
    await stuck.receivedAtLeast(3, 'the stuck endpoint catching up');
  });

  it('records a redirect (not followed), a 500 and a huge body (cut to 2,048 characters)', async () => {
    const odd = await receiver((_request, response, count) => {
      if (count === 1) {
        response.writeHead(302, { location: 'https://elsewhere.example.com/' }).end();
      } else if (count === 2) {
        response.writeHead(500).end('internal trouble');
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5_000_000));
      }
    });
    const endpoint = await endpointFor(odd);
    await appendEvents(1, 1);
    const [huge, failed, redirected] = await eventually(
      () => deliveryLog(endpoint.id),
      (log) => log.length >= 3,
      { what: 'three attempts' },
    );
    assert.equal(redirected?.http_code, 302);
    assert.equal(redirected?.succeeded, false);
    assert.match(
      redirected?.error ?? '',
      /redirect to https:\/\/elsewhere\.example\.com\/ not followed/,
    );
    assert.equal(odd.received.length, 3, 'the redirect target was never asked');
    assert.equal(failed?.http_code, 500);
    assert.equal(failed?.response, 'internal trouble');
    assert.equal(huge?.succeeded, true);
    assert.equal(huge?.response?.length, 2048);
    assert.equal(huge?.webhook_event.succeeded, true);
  });

  it('delivers at least once when the delivery worker stops mid-delivery', async () => {
    let answering = false;
    const slow = await receiver((_request, response) => {
      if (answering) response.end('ok');
      // Otherwise the request hangs until the worker gives it up.
    });
    const endpoint = await endpointFor(slow);
    await appendEvents(1, 2);
    await slow.receivedAtLeast(1, 'the first attempt');
    answering = true;
    await stack.stopDeliveries();
    await stack.startDeliveries();
    await slow.receivedAtLeast(3, 'the deliveries after the restart');
    const ids = slow.received.map((webhook) => webhook.headers['webhook-id']);
    assert.equal(ids[0], ids[1], 'the interrupted event is sent again');
    assert.deepEqual(
      deliveredSeqs(slow, (count) => count > 1),
      [1, 2],
    );
    await recordedDelivered(endpoint.id, 2, 'both events recorded as delivered');
  });

  it('delivers at least once when the worker process is killed mid-delivery', async () => {
    let answering = false;
    const target = await receiver((_request, response) => {
      if (answering) response.end('ok');
    });
    const endpoint = await endpointFor(target);
    await stack.stopDeliveries();
    const child = spawn(
      process.execPath,
      [
        join(import.meta.dirname, 'testing-delivery-worker.ts'),
        stack.databaseUrl,
        stack.deliveryTaskQueue,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    try {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      await eventually(
        () => output,
        (text) => text.includes('polling'),
        { what: 'the worker process', timeoutMs: 60_000 },
      );
      await appendEvents(1, 2);
      await target.receivedAtLeast(1, 'the attempt from that process');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // Its heartbeats stopped with it: Temporal runs the round again on the next worker.
    answering = true;
    await stack.startDeliveries();
    await target.receivedAtLeast(3, 'the deliveries after the kill', 60_000);
    const ids = target.received.map((webhook) => webhook.headers['webhook-id']);
    assert.equal(ids[0], ids[1], 'the event in flight is sent again');
    assert.deepEqual(
      deliveredSeqs(target, (count) => count > 1),
      [1, 2],
    );
    await recordedDelivered(endpoint.id, 2, 'both events recorded as delivered');
  });
});

describe('the SSRF guard of production deliveries', () => {
  it('judges addresses: loopback, private, link-local and mapped ones are internal', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isInternalAddress(address), true, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isInternalAddress(address), false, address);
    }
  });

  it('refuses to post to a host resolving to an internal address; development allows it', async () => {
    const target = await startReceiver();
    try {
      const body = '{}';
      const headers = signWebhook(`whsec_${'s'.repeat(32)}`, 'evt', new Date(), body);
      const guarded = { timeoutMs: 5000, guardAddresses: true };
      const literal = await postWebhook(target.url, body, headers, guarded);
      assert.equal(literal.succeeded, false);
      assert.match(literal.error ?? '', /internal address: refused/);
      const named = await postWebhook(
        target.url.replace('127.0.0.1', 'localhost'),
        body,
        headers,
        guarded,
      );
      assert.equal(named.succeeded, false);
      assert.match(named.error ?? '', /internal address: refused/);
      assert.equal(target.received.length, 0);
      const open = await postWebhook(target.url, body, headers, {
        timeoutMs: 5000,
        guardAddresses: false,
      });
      assert.equal(open.succeeded, true);
      assert.equal(target.received.length, 1);
    } finally {
      await target.close();
    }
  });
});
