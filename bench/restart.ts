/**
 * Worker restart benchmark (issue 21): a worker process SIGTERMed while checkouts wait on it, a
 * new one started as soon as it has exited (as compose's restart policy or a rolling deploy
 * would), and the time until the new one handles the first of them:
 *   - stop: SIGTERM to the old worker's exit;
 *   - restart to first task: SIGTERM to the first workflow task completed by the new worker;
 *   - restart to all tasks: SIGTERM to the last of them;
 *   - sticky timeouts: workflow tasks left on the old worker's sticky queue until its 10 s
 *     timeout (WorkflowTaskTimedOut in the histories), which graceful shutdown should avoid.
 *
 *   node bench/restart.ts [--rounds=3] [--checkouts=10] [--processes=2] [--confirm-after-exit]
 *
 * Each round: `checkouts` checkouts created (their first workflow task done by the running
 * worker, which then holds them in its sticky cache), the worker SIGTERMed, each checkout
 * confirmed at once (the confirm's workflow task now pending; with --confirm-after-exit, once
 * the old worker has exited), the new worker started when the old one exits. `processes` is
 * TOLLGATE_WORKER_PROCESSES of each worker.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { projectRoot } from '../config/env.ts';
import { startWorkerProcess } from '../devstack/app-processes.ts';
import { eventually } from '../devstack/eventually.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { Supervisor } from '../devstack/supervisor.ts';
import { startTestStack } from '../devstack/test-stack.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { apiCaller } from './lib/api-caller.ts';
import { benchRun } from './lib/bench-run.ts';
import { writeBenchResults } from './lib/results.ts';

const flag = (name: string, fallback: number) => {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return value ? Number(value.slice(name.length + 3)) : fallback;
};
const rounds = flag('rounds', 3);
const checkoutsPerRound = flag('checkouts', 10);
const workerProcesses = flag('processes', 2);
const confirmAfterExit = process.argv.includes('--confirm-after-exit');
if (![rounds, checkoutsPerRound, workerProcesses].every((n) => Number.isInteger(n) && n > 0)) {
  throw new Error(
    'usage: node bench/restart.ts [--rounds=3] [--checkouts=10] [--processes=2] [--confirm-after-exit]',
  );
}

const run = benchRun('restart', 300 + rounds * 120);
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-restart');

interface Round {
  stopMs: number;
  firstTaskMs: number;
  allTasksMs: number;
  stickyTimeouts: number;
}

/** A history event's time, in milliseconds since the epoch. */
const at = (event: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

try {
  say('starting the test stack');
  // No worker of the stack's own: the run starts and restarts its workers itself.
  const stack = await startTestStack(say, { worker: false });
  run.add({ name: 'test stack', stop: () => stack.stop() });
  const workers = new Supervisor(() => undefined);
  run.add({ name: 'workers', stop: () => workers.stopAll() });
  let generation = 0;
  const startWorker = () =>
    startWorkerProcess(workers, stack.addresses, {
      env: {
        ...process.env,
        ...stack.env,
        TOLLGATE_WORKER_PROCESSES: String(workerProcesses),
      },
      namespace: stack.config.temporal.namespace,
      logFile: join(workDir, `worker-${++generation}.log`),
    });

  const apiUrl = await run.startApi(stack, join(workDir, 'tollgate-api.log'));
  const simulatorUrl = stack.env.STRIPE_SIMULATOR_URL;
  if (!simulatorUrl) throw new Error('the test stack runs no Stripe simulator');
  await stripeSimulatorControl(simulatorUrl).registerWebhookTarget(
    `${apiUrl}/v1/integrations/stripe/webhook`,
  );
  const temporal: Client = await connectTemporal({
    ...stack.config.temporal,
    address: stack.addresses.temporalAddress,
  });
  run.closeOnCleanUp(() => temporal.connection.close());
  const { token } = await run.seedSeller(stack.addresses.databaseUrl);

  const call = apiCaller(apiUrl, token);
  const product = await call('POST', '/v1/products/', {
    name: 'Restart ebook',
    prices: [{ amount_type: 'fixed', price_amount: 1000 }],
  });
  const historyOf = async (checkoutId: string) =>
    (await temporal.workflow.getHandle(workflowIds.checkout(checkoutId)).fetchHistory()).events ??
    [];

  let worker: ChildProcess = await startWorker();
  const measured: Round[] = [];
  for (let round = 1; round <= rounds; round++) {
    const checkouts: { id: string; client_secret: string }[] = await Promise.all(
      Array.from({ length: checkoutsPerRound }, () =>
        call('POST', '/v1/checkouts/', { products: [product.id] }),
      ),
    );
    // Each first workflow task done by the running worker: cached there, sticky to it.
    for (const checkout of checkouts) {
      await eventually(
        () => historyOf(checkout.id),
        (events) => events.some((event) => event.workflowTaskCompletedEventAttributes),
        { what: `checkout ${checkout.id} started`, timeoutMs: 60_000 },
      );
    }

    const old = worker;
    const exited = new Promise<void>((resolve) => old.once('exit', () => resolve()));
    const signalledAt = Date.now();
    old.kill('SIGTERM');
    if (confirmAfterExit) await exited;
    // The buyers confirm: each confirm waits for a worker to take its task.
    const confirming = checkouts.map((checkout, index) =>
      call(
        'POST',
        `/v1/checkouts/client/${checkout.client_secret}/confirm`,
        {
          customer_email: `buyer-${round}-${index}@restart.bench`,
          customer_name: 'Restart Buyer',
          customer_billing_address: { country: 'FR' },
          confirmation_token_id: 'pm_card_visa',
        },
        false,
      ).catch((error: Error) => error),
    );
    await exited;
    const stopMs = Date.now() - signalledAt;
    worker = await startWorker();
    await Promise.all(confirming);
    const outcomes = await Promise.all(
      checkouts.map((checkout) =>
        temporal.workflow.getHandle(workflowIds.checkout(checkout.id)).result(),
      ),
    );
    if (outcomes.some((outcome) => outcome !== 'succeeded')) {
      throw new Error(`round ${round}: checkouts ended ${outcomes.join(', ')}`);
    }

    // The workflow task after the first one: the confirm's, taken by the new worker.
    const histories = await Promise.all(checkouts.map((checkout) => historyOf(checkout.id)));
    const handledAt = histories.map(
      (events) =>
        at(events.filter((event) => event.workflowTaskCompletedEventAttributes)[1] ?? {}) -
        signalledAt,
    );
    const result: Round = {
      stopMs,
      firstTaskMs: Math.round(Math.min(...handledAt)),
      allTasksMs: Math.round(Math.max(...handledAt)),
      stickyTimeouts: histories.flat().filter((event) => event.workflowTaskTimedOutEventAttributes)
        .length,
    };
    say(`round ${round}: ${JSON.stringify(result)}`);
    measured.push(result);
    // The next round's checkouts are cached by a worker that has settled.
    await sleep(1000);
  }

  const results = {
    rounds,
    checkoutsPerRound,
    workerProcesses,
    confirmed: confirmAfterExit ? 'after the old worker exited' : 'right after SIGTERM',
    stopMs: median(measured.map((round) => round.stopMs)),
    restartToFirstTaskMs: median(measured.map((round) => round.firstTaskMs)),
    restartToAllTasksMs: median(measured.map((round) => round.allTasksMs)),
    stickyTimeouts: measured.reduce((sum, round) => sum + round.stickyTimeouts, 0),
    samples: measured,
    measuredAt: new Date().toISOString(),
  };
  console.table({
    'SIGTERM → old worker exited (ms, median)': { value: results.stopMs },
    'SIGTERM → first task by the new worker (ms, median)': {
      value: results.restartToFirstTaskMs,
    },
    'SIGTERM → all pending tasks handled (ms, median)': { value: results.restartToAllTasksMs },
    'sticky timeouts (WorkflowTaskTimedOut, all rounds)': { value: results.stickyTimeouts },
  });
  writeBenchResults('restart', results);
} finally {
  await run.cleanUp();
}
