import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type Config, loadConfig } from '../config/env.ts';
import { migrateToLatest, openOrm } from '../db/orm.ts';
import { startWorkerProcess } from './app-processes.ts';
import { dropDatabase, ensureDatabase } from './postgres.ts';
import { type ServiceAddresses, serviceEnvironment, startServices } from './stack.ts';
import { Supervisor } from './supervisor.ts';

export interface TestStack {
  config: Config;
  addresses: ServiceAddresses;
  /** What a test process needs in its environment to reach this stack. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The real services for a test run: PostgreSQL (DATABASE_URL's server, or an embedded one)
 * with a fresh, migrated database; an in-memory Temporal dev server; stripe-mock behind the
 * Stripe simulator (test APIs register their webhook endpoint with it); an SMTP server
 * capturing mail into a directory of the run's own (MAIL_CAPTURE_DIR); and the worker process
 * polling the main task queue.
 */
export async function startTestStack(
  log: (line: string) => void,
  {
    // The keys of the run's Temporal payload codec (TOLLGATE_PAYLOAD_KEYS); a new one by default.
    payloadKeys = `test:${randomBytes(32).toString('base64')}`,
    // false: no worker process; the test runs its own workers in-process (core/tracing.test.ts).
    worker = true,
  } = {},
): Promise<TestStack> {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    TOLLGATE_PAYLOAD_KEYS: payloadKeys,
  });
  let crashed: string | undefined;
  const supervisor = new Supervisor((service, code) => {
    crashed = `${service} exited unexpectedly (code ${code})`;
    log(crashed);
  });
  try {
    const services = await startServices(supervisor, config, 'test', log);
    const databaseUrl = freshDatabaseUrl(services.databaseUrl);
    await ensureDatabase(databaseUrl);
    // Stopped in reverse order: after the worker lets go of it, before its server stops.
    supervisor.add({ name: 'test database', stop: () => dropDatabase(databaseUrl) });
    const orm = await openOrm(databaseUrl);
    await migrateToLatest(orm);
    await orm.close();
    const addresses = { ...services, databaseUrl };

    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      TOLLGATE_OPS_TOKEN: randomBytes(32).toString('hex'),
      TOLLGATE_AUTH_SECRET: randomBytes(32).toString('hex'),
      TOLLGATE_PAYLOAD_KEYS: payloadKeys,
      // Tests sign many users up and in from 127.0.0.1 within seconds; the limiter's own test
      // (api/auth/rate-limit.test.ts) starts an API with it on.
      TOLLGATE_AUTH_RATE_LIMIT: 'off',
      ...serviceEnvironment(addresses),
    };
    if (worker) await startTestWorker(supervisor, { config, addresses, env });
    if (crashed) throw new Error(crashed);

    return { config, addresses, env, stop: () => supervisor.stopAll() };
  } catch (error) {
    await supervisor.stopAll();
    throw error;
  }
}

/**
 * The stack's worker process under `supervisor`, logging to the run's test-logs/worker.log (the
 * stack's own, or one a benchmark runs itself to kill and restart).
 */
export function startTestWorker(
  supervisor: Supervisor,
  { config, addresses, env }: Pick<TestStack, 'config' | 'addresses' | 'env'>,
) {
  return startWorkerProcess(supervisor, addresses, {
    env: { ...process.env, ...env },
    namespace: config.temporal.namespace,
    logFile: join(config.dataDir, 'test-logs', 'worker.log'),
  });
}

/** A database of its own for this run, on the same server. */
function freshDatabaseUrl(url: string): string {
  const fresh = new URL(url);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  fresh.pathname = `/tollgate_test_${stamp}_${process.pid}`;
  return fresh.toString();
}

/** The shared run's services, which a test's own stack must not reach. */
const sharedServiceVariables = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_UI_URL',
  'STRIPE_API_BASE',
  'STRIPE_SIMULATOR_URL',
  'STRIPE_WEBHOOK_SECRET',
];

/**
 * A stack of a test's own beside the run's shared one (its own Temporal server and Stripe
 * simulator), started with `settings` added to this process's environment: the run's worker does
 * not poll its task queues, and its processes are the test's to kill. Answers the stack and the
 * environment it was started with, for the test's own processes. `settings` may name services
 * of the test's own (a TEMPORAL_ADDRESS of a server it runs), which the stack then uses.
 */
export async function startOwnTestStack(
  settings: NodeJS.ProcessEnv,
  options?: Parameters<typeof startTestStack>[1],
): Promise<{ stack: TestStack; env: NodeJS.ProcessEnv }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of sharedServiceVariables) delete env[name];
  Object.assign(env, settings);
  const shared = process.env;
  process.env = env;
  try {
    return { stack: await startTestStack(() => undefined, options), env };
  } finally {
    process.env = shared;
  }
}
