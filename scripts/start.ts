/**
 * `npm start`: brings up everything on embedded defaults — PostgreSQL, the Temporal dev server,
 * stripe-mock, the worker and the API serving the dashboard — and prints where to click.
 * Ctrl-C, or the death of any one part, stops them all.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { demoAccount } from '../accounts/demo-account.ts';
import { setUpDemo } from '../commerce/demo.ts';
import { type Config, ConfigurationError, loadConfig, projectRoot } from '../config/env.ts';
import { migrateToLatest, openOrm } from '../db/orm.ts';
import { startApiProcess, startWorkerProcess } from '../devstack/app-processes.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { startServices } from '../devstack/stack.ts';
import { assertPortFree, StartupError, Supervisor } from '../devstack/supervisor.ts';

const say = (line: string) => console.log(`[tollgate] ${line}`);

function fail(error: unknown): never {
  const known = error instanceof ConfigurationError || error instanceof StartupError;
  console.error(known ? `[tollgate] ${error.message}` : error);
  process.exit(1);
}

/** A secret the user did not configure is made once and kept in the data folder (mode 600). */
function localSecret(
  config: Config,
  fileName: string,
  configured: string | undefined,
  make = () => randomBytes(32).toString('hex'),
): string {
  if (configured) return configured;
  const file = join(config.dataDir, fileName);
  if (!existsSync(file)) writeFileSync(file, make(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error);
}
mkdirSync(config.dataDir, { recursive: true });
const started = performance.now();

const supervisor = new Supervisor((service, code) => {
  console.error(`[tollgate] ${service} exited unexpectedly (code ${code}); stopping everything`);
  void supervisor.stopAll().then(() => process.exit(1));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say('Stopping...');
    void supervisor.stopAll().then(() => process.exit(0));
  });
}

try {
  await assertPortFree(config.api.port, config.api.host, 'Tollgate API');
  const addresses = await startServices(supervisor, config, 'start', say);

  const orm = await openOrm(addresses.databaseUrl);
  const applied = await migrateToLatest(orm);
  if (applied.length) say(`Applied migrations: ${applied.join(', ')}`);
  const demoTokenFile = join(config.dataDir, 'demo-access-token');
  const demo = await setUpDemo(orm, {
    env: config.env,
    tokenFile: demoTokenFile,
    publicUrl: config.api.publicUrl,
  });
  await orm.close();
  if (!demo.seeded && demo.leftoverDemoUser) {
    say(
      `WARNING: ${demoAccount.email}, the demo admin an earlier start made, is in this ` +
        `${config.env} database with a published password: remove it ` +
        '(POST /api/auth/admin/remove-user) and revoke the demo token.',
    );
  }

  await buildDashboardIfStale(say);

  const logDir = join(config.dataDir, 'logs');
  const env = {
    ...process.env,
    TOLLGATE_OPS_TOKEN: localSecret(config, 'ops-token', config.opsToken),
    TOLLGATE_AUTH_SECRET: localSecret(config, 'auth-secret', config.auth.secret),
    // Encrypts Temporal payloads; production refuses to start without its own (config/env.ts).
    TOLLGATE_PAYLOAD_KEYS: localSecret(
      config,
      'payload-keys',
      process.env.TOLLGATE_PAYLOAD_KEYS,
      () => `local:${randomBytes(32).toString('base64')}`,
    ),
  };
  await startWorkerProcess(supervisor, addresses, {
    env,
    namespace: config.temporal.namespace,
    logFile: join(logDir, 'worker.log'),
  });
  const apiUrl = `http://${config.api.host}:${config.api.port}`;
  await startApiProcess(supervisor, addresses, {
    env,
    url: apiUrl,
    logFile: join(logDir, 'api.log'),
  });

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const { publicUrl } = config.api;
  const mailOutbox = !addresses.mailCaptureDir
    ? '(sent through SMTP_URL)'
    : config.env === 'development'
      ? `${publicUrl}/api/dev/outbox (as the demo admin, or with the ops token)`
      : `${relative(projectRoot, addresses.mailCaptureDir)}/`;
  const demoLines = demo.seeded
    ? `  Demo sign-in     ${demoAccount.email} / ${demoAccount.password}
  Demo /v1 token   ${relative(projectRoot, demoTokenFile)} (Polar SDK: serverURL ${publicUrl})`
    : `  Demo data        none: NODE_ENV=${config.env} makes no demo user or token (development only)`;
  console.log(`
Tollgate is ready (${seconds} s)

  Dashboard        ${publicUrl}/
  Auth API         ${publicUrl}/api/auth/ok
  Commerce API     ${publicUrl}/v1
  Readiness        ${publicUrl}/api/health/ready
  Temporal Web UI  ${addresses.temporalUiUrl ?? '(external Temporal: see your cluster)'}
  Mail outbox      ${mailOutbox}
${demoLines}
  Ops token        ${config.opsToken ? 'TOLLGATE_OPS_TOKEN' : relative(projectRoot, join(config.dataDir, 'ops-token'))}
  Logs             ${relative(projectRoot, logDir)}/

Press Ctrl-C to stop.`);
} catch (error) {
  await supervisor.stopAll();
  fail(error);
}
