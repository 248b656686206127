import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buy } from '../../commerce/orders/testing.ts';
import { createSeller, type Seller, type TestApi } from '../../commerce/testing.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { startApiProcess } from '../../devstack/app-processes.ts';
import { eventually } from '../../devstack/eventually.ts';
import { findFreePort, Supervisor } from '../../devstack/supervisor.ts';
import { startOwnTestStack, type TestStack } from '../../devstack/test-stack.ts';
import { startTestApi } from '../testing.ts';

/** The value of the sample `name{labels}` (labels as printed, in order), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrape = (url: string, token?: string) =>
  fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /metrics on the API and the worker, each a pool of two processes', {
  timeout: 600_000,
}, () => {
  const token = randomBytes(32).toString('hex');
  let stack: TestStack;
  let api: TestApi;
  let seller: Seller;
  let apiMetrics: string;
  let workerMetrics: string;
  let poolUrl: string;
  const apiPool = new Supervisor(() => undefined);

  // Its own Temporal server, and two pools of two processes each bundling or loading the app.
  const startTimeout = { timeout: 300_000 };
  before(async () => {
    // A stack of its own: its worker (two processes, serving metrics) is the only one polling,
    // so every checkout of this test is counted there.
    const workerMetricsPort = await findFreePort();
    workerMetrics = `http://127.0.0.1:${workerMetricsPort}/metrics`;
    const { stack: started, env: own } = await startOwnTestStack({
      TOLLGATE_WORKER_PROCESSES: '2',
      TOLLGATE_WORKER_METRICS_PORT: String(workerMetricsPort),
      TOLLGATE_METRICS_TOKEN: token,
    });
    stack = started;
    // In this process, without a metrics token: it takes Stripe's webhooks and makes sellers.
    const { TOLLGATE_METRICS_TOKEN: _, ...withoutToken } = { ...own, ...stack.env };
    api = await startTestApi(loadRuntimeConfig(withoutToken));
    const port = await findFreePort();
    poolUrl = `http://127.0.0.1:${port}`;
    apiMetrics = `${poolUrl}/metrics`;
    await startApiProcess(apiPool, stack.addresses, {
      env: {
        ...own,
        ...stack.env,
        TOLLGATE_API_PROCESSES: '2',
        TOLLGATE_API_PORT: String(port),
      },
      url: poolUrl,
      logFile: join(stack.config.dataDir, 'test-logs', 'metrics-api.log'),
    });
    seller = await createSeller({ ...api, url: poolUrl });
  }, startTimeout);
  after(async () => {
    await apiPool.stopAll();
    await api?.close();
    await stack?.stop();
  });

  it('refuses a scrape without the token, and has no endpoint where no token is set', async () => {
    for (const url of [apiMetrics, workerMetrics]) {
      const bare = await scrape(url);
      assert.equal(bare.status, 401, url);
      assert.equal(bare.headers.get('www-authenticate'), 'Bearer');
      assert.equal((await scrape(url, 'not-the-token')).status, 401, url);
    }
    assert.equal((await scrape(`${api.url}/metrics`, token)).status, 404);
  });

  it('counts a checkout paid through the SDK: started on the API, paid on the worker, each pool summed', async () => {
    const product = await seller.polar.products.create({
      name: 'Counted ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    const { checkout, order } = await buy({ ...api, url: poolUrl }, seller, product.id);
    assert.equal(checkout.status, 'succeeded');
    assert.ok(order);

    // Each scrape reaches one of the two API processes; each answers for both.
    for (let scrapeNumber = 0; scrapeNumber < 4; scrapeNumber++) {
      const answer = await scrape(apiMetrics, token);
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await answer.text();
      assert.equal(sample(text, 'tollgate_checkouts_started_total'), 1, text);
      // The route's template, never its path: no id or client secret becomes a label.
      assert.equal(
        sample(
          text,
          'tollgate_http_request_duration_seconds_count{route="/v1/checkouts/client/:client_secret/confirm",method="POST",status="200"}',
        ),
        1,
      );
      assert.ok(!text.includes(checkout.id) && !text.includes(checkout.clientSecret));
      assert.match(text, /^tollgate_db_pool_connections\{state="idle"\} \d+$/m);
      assert.match(text, /^tollgate_dunning_open_subscriptions \d+$/m);
      assert.match(text, /^tollgate_webhook_backlog_events\{endpoint="enabled"\} \d+$/m);
    }

    const worker = await eventually(
      async () => (await scrape(workerMetrics, token)).text(),
      (text) => sample(text, 'tollgate_checkouts_paid_total') === 1,
      { what: 'the paid checkout in the worker metrics', intervalMs: 500 },
    );
    assert.equal(sample(worker, 'tollgate_checkouts_failed_total'), 0);
  });

  it("exposes the Temporal SDK's worker metrics on the worker's endpoint", async () => {
    const names = [
      'temporal_worker_task_slots_available',
      'temporal_workflow_task_schedule_to_start_latency_count',
      'temporal_sticky_cache_size',
    ];
    const text = await eventually(
      async () => (await scrape(workerMetrics, token)).text(),
      (text) => names.every((name) => new RegExp(`^${name}[{ ]`, 'm').test(text)),
      { what: `${names.join(', ')} in the worker metrics`, intervalMs: 500 },
    );
    assert.match(text, /^temporal_worker_task_slots_available\{[^}]*task_queue="[^"]+"/m);
    assert.match(text, /^tollgate_db_pool_connections\{state="in_use"\} \d+$/m);
  });
});
