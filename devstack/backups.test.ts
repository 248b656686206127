import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { runInvariants } from '../bench/soak/invariants.ts';
import { buy } from '../commerce/orders/testing.ts';
import { advanceTestClock, subscribeOnTestClock } from '../commerce/subscriptions/testing.ts';
import {
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../commerce/testing.ts';
import { loadConfig, loadRuntimeConfig, projectRoot } from '../config/env.ts';
import { Order, Payment } from '../db/entities/index.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { startWorkerProcess } from './app-processes.ts';
import { eventually } from './eventually.ts';
import { dropDatabase, startEmbeddedPostgres } from './postgres.ts';
import { findFreePort, Supervisor } from './supervisor.ts';
import { startTemporalDevServer } from './temporal.ts';
import { startOwnTestStack, type TestStack } from './test-stack.ts';
import { locateGoTool } from './tools.ts';

/** Runs `npm run db:backup` or `db:restore`'s script with `env`; answers its exit code and output. */
function runScript(script: 'db-backup' | 'db-restore', args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(projectRoot, 'scripts', `${script}.ts`), ...args],
      { env, cwd: projectRoot },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/**
 * A stack like `npm start`'s (its Temporal dev server keeping its state in a SQLite file of the
 * data folder) makes a paid subscription; `npm run db:backup` saves it; `npm run db:restore`
 * puts it into a new database and a new data folder; a stack started on those finds the data
 * and the subscription's workflow, which renews it when its test clock moves on.
 */
describe('backing up and restoring the database and the Temporal state', () => {
  const root = mkdtempSync(join(tmpdir(), 'tollgate-backups-'));
  const sourceDir = join(root, 'source');
  const restoredDir = join(root, 'restored');
  const backups = join(root, 'backups');
  // Each side's Temporal dev server and worker, stopped and started by the test.
  const source = new Supervisor(() => undefined);
  const restored = new Supervisor(() => undefined);
  let stack: TestStack;
  let env: NodeJS.ProcessEnv;
  let temporalBinary: string;
  let restoredUrl: string;
  // The API port the scripts check is free (`npm start`'s API must be stopped for a restore).
  let apiPort: number;
  let api: TestApi | undefined;
  let temporal: Client | undefined;

  /** Runs the Temporal dev server on `dataDir`'s temporal.sqlite, where `npm start` keeps it. */
  async function startTemporal(supervisor: Supervisor, dataDir: string, port: number) {
    mkdirSync(dataDir, { recursive: true });
    return startTemporalDevServer(supervisor, temporalBinary, {
      port,
      uiPort: undefined,
      databaseFile: join(dataDir, 'temporal.sqlite'),
      logFile: join(root, `temporal-${port}.log`),
    });
  }

  /** The worker and an API on `databaseUrl` and the Temporal at `temporalAddress`. */
  async function startApp(supervisor: Supervisor, databaseUrl: string, temporalAddress: string) {
    const appEnv = {
      ...env,
      ...stack.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
    };
    await startWorkerProcess(
      supervisor,
      { ...stack.addresses, databaseUrl, temporalAddress },
      {
        env: appEnv,
        namespace: stack.config.temporal.namespace,
        logFile: join(root, `worker-${temporalAddress.split(':')[1]}.log`),
      },
    );
    api = await startCommerceApi(loadRuntimeConfig(appEnv));
    temporal = await connectTemporal(api.config.temporal);
    return api;
  }

  async function stopApp(supervisor: Supervisor) {
    await temporal?.connection.close();
    await api?.close();
    temporal = undefined;
    api = undefined;
    await supervisor.stopAll();
  }

  /** The scripts' environment: `npm start`'s settings for `dataDir`, without TEMPORAL_ADDRESS. */
  function scriptEnv(settings: { dataDir: string; databaseUrl: string; temporalPort: number }) {
    const variables: NodeJS.ProcessEnv = {
      ...env,
      ...stack.env,
      TOLLGATE_DATA_DIR: settings.dataDir,
      DATABASE_URL: settings.databaseUrl,
      TEMPORAL_DEV_PORT: String(settings.temporalPort),
      TOLLGATE_API_PORT: String(apiPort),
    };
    // `npm start` runs the dev server itself: its state is the data folder's SQLite file.
    delete variables.TEMPORAL_ADDRESS;
    return variables;
  }

  before(async () => {
    const found = await locateGoTool('temporal', loadConfig().temporal.cliPath, () => undefined);
    assert.ok(found, 'the Temporal CLI (npm test builds it)');
    temporalBinary = found;
    apiPort = await findFreePort();
    const sourcePort = await findFreePort();
    const sourceTemporal = await startTemporal(source, sourceDir, sourcePort);
    // The stack's other services (its own Stripe simulator, mail capture) serve both sides.
    ({ stack, env } = await startOwnTestStack(
      { TEMPORAL_ADDRESS: sourceTemporal, TEMPORAL_DEV_PORT: String(sourcePort) },
      { worker: false },
    ));
    const restoredDatabase = new URL(stack.addresses.databaseUrl);
    restoredDatabase.pathname += '_restored';
    restoredUrl = restoredDatabase.toString();
  });
  after(async () => {
    await stopApp(restored);
    await source.stopAll();
    if (restoredUrl) await dropDatabase(restoredUrl);
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('restores a paid subscription whose workflow renews it, every invariant holding', async () => {
    const sourcePort = Number(stack.env.TEMPORAL_ADDRESS?.split(':')[1]);
    const sourceApi = await startApp(
      source,
      stack.addresses.databaseUrl,
      stack.env.TEMPORAL_ADDRESS as string,
    );
    let seller: Seller = await createSeller(sourceApi);
    const plan = await seller.polar.products.create({
      name: 'Backed-up plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    const ebook = await seller.polar.products.create({
      name: 'Backed-up ebook',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      sourceApi,
      seller,
      plan.id,
      '2027-03-01T10:00:00.000Z',
    );
    const { order: ebookOrder } = await buy(sourceApi, seller, ebook.id);
    assert.equal(ebookOrder?.status, 'paid');
    const original = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(original.status, 'active');
    const workflowId = workflowIds.subscription(subscriptionId);
    assert.equal(
      (await temporal?.workflow.getHandle(workflowId).describe())?.status.name,
      'RUNNING',
    );

    const sourceSettings = {
      dataDir: sourceDir,
      databaseUrl: stack.addresses.databaseUrl,
      temporalPort: sourcePort,
    };
    // The dev server holds its file without a busy timeout: a copy taken under it could fail its writes.
    const refused = await runScript('db-backup', ['--to', backups], scriptEnv(sourceSettings));
    assert.equal(refused.code, 1, refused.output);
    assert.match(refused.output, /Temporal dev server looks to be running.*stop `npm start`/);
    assert.ok(!readdirSync(root).includes('backups'), 'no half backup left behind');

    await stopApp(source);
    const saved = await runScript('db-backup', ['--to', backups], scriptEnv(sourceSettings));
    assert.equal(saved.code, 0, saved.output);
    const [backupName] = readdirSync(backups);
    assert.ok(backupName, saved.output);
    const backup = join(backups, backupName);

    const restoredPort = await findFreePort();
    const restoreSettings = {
      dataDir: restoredDir,
      databaseUrl: restoredUrl,
      temporalPort: restoredPort,
    };
    // Refusals first, each leaving everything as it was.
    const missing = await runScript(
      'db-restore',
      [join(backups, 'none')],
      scriptEnv(restoreSettings),
    );
    assert.equal(missing.code, 1);
    assert.match(missing.output, /No backup at .*none/);
    const overSource = await runScript(
      'db-restore',
      [backup],
      scriptEnv({ ...restoreSettings, databaseUrl: stack.addresses.databaseUrl }),
    );
    assert.equal(overSource.code, 1);
    assert.match(overSource.output, /already holds tables: .*--force/);
    const otherKeys = await runScript('db-restore', [backup], {
      ...scriptEnv(restoreSettings),
      TOLLGATE_PAYLOAD_KEYS: `other:${Buffer.alloc(32, 7).toString('base64')}`,
    });
    assert.equal(otherKeys.code, 1);
    assert.match(otherKeys.output, /encrypted with payload key test.*TOLLGATE_PAYLOAD_KEYS/);
    assert.ok(!existsSync(restoredDir), 'no refused restore wrote anything');

    const put = await runScript('db-restore', [backup], scriptEnv(restoreSettings));
    assert.equal(put.code, 0, put.output);
    const again = await runScript('db-restore', [backup], scriptEnv(restoreSettings));
    assert.equal(again.code, 1, 'a second restore would replace the first');
    assert.match(again.output, /already holds tables/);

    // The restored side: its own Temporal dev server on the restored file, its worker and API.
    const restoredTemporal = await startTemporal(restored, restoredDir, restoredPort);
    const restoredApi = await startApp(restored, restoredUrl, restoredTemporal);
    seller = { ...seller, polar: polarClient(restoredApi.url, seller.token) };
    const carried = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.deepEqual(
      [carried.status, carried.currentPeriodStart, carried.currentPeriodEnd, carried.customerId],
      [
        original.status,
        original.currentPeriodStart,
        original.currentPeriodEnd,
        original.customerId,
      ],
    );
    assert.equal((await seller.polar.orders.get({ id: ebookOrder?.id as string })).status, 'paid');
    assert.equal(
      (await temporal?.workflow.getHandle(workflowId).describe())?.status.name,
      'RUNNING',
    );

    // The workflow carried over renews the subscription when its clock reaches the period's end.
    await advanceTestClock(restoredApi, seller, clockId, '2027-04-01T10:00:00.000Z');
    const renewed = await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.currentPeriodEnd?.toISOString() === '2027-05-01T10:00:00.000Z',
      { what: `subscription ${subscriptionId} renewed`, timeoutMs: 90_000 },
    );
    assert.equal(renewed.status, 'active');
    const em = restoredApi.orm.em.fork();
    const renewals = await em.find(Order, {
      subscription: subscriptionId,
      billingReason: 'subscription_cycle',
    });
    assert.deepEqual(
      renewals.map((order) => [order.status, order.totalAmount]),
      [['paid', 1200]],
    );
    assert.equal(await em.count(Payment, { order: renewals[0]?.id, status: 'succeeded' }), 1);

    // The soak's invariants hold on the restored stack, once its outbox relayed the renewal.
    const results = await eventually(
      () =>
        runInvariants({
          databaseUrl: restoredUrl,
          stripeSimulatorUrl: stack.addresses.stripeSimulator?.url,
          stripeSecretKey: stack.config.stripe.secretKey,
          temporal,
          api: { url: restoredApi.url, token: seller.token },
        }),
      (found) => found.every((result) => result.violations.length === 0),
      { what: 'every invariant holding', timeoutMs: 60_000, intervalMs: 1000 },
    );
    const checked = results.filter((result) => result.checked).map((result) => result.invariant);
    assert.ok(checked.includes('exactly one succeeded charge per paid order'), checked.join(', '));
    assert.ok(checked.includes('no PaymentIntent without its order'), checked.join(', '));
    assert.ok(checked.includes('no workflow stuck'), checked.join(', '));
  });
});

/**
 * `npm start` on its embedded PostgreSQL: the backup holds the cluster's files (no pg_dump of
 * the embedded major version ships), the data folder's secrets and the uploaded files, and the
 * restore puts them into a new data folder where the embedded PostgreSQL opens them.
 */
describe('backing up and restoring the embedded PostgreSQL', () => {
  const root = mkdtempSync(join(tmpdir(), 'tollgate-embedded-backups-'));
  // Passable: under root, the embedded PostgreSQL runs as its own user and must reach its cluster.
  chmodSync(root, 0o755);
  const supervisor = new Supervisor(() => undefined);
  after(async () => {
    await supervisor.stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  /** `npm start`'s settings for `dataDir`: no DATABASE_URL, and a Temporal of its own elsewhere. */
  async function embeddedEnv(dataDir: string): Promise<NodeJS.ProcessEnv> {
    const variables: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      TOLLGATE_DATA_DIR: dataDir,
      TOLLGATE_EMBEDDED_POSTGRES_PORT: String(await findFreePort()),
      TOLLGATE_API_PORT: String(await findFreePort()),
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
    };
    delete variables.DATABASE_URL;
    delete variables.TOLLGATE_PAYLOAD_KEYS;
    delete variables.TOLLGATE_AUTH_SECRET;
    return variables;
  }

  /** Runs the embedded PostgreSQL on `dataDir`'s cluster and answers its database's URL. */
  const startCluster = async (dataDir: string) =>
    startEmbeddedPostgres(supervisor, {
      directory: join(dataDir, 'postgres'),
      port: await findFreePort(),
      database: 'tollgate',
      logFile: join(root, 'logs', 'postgres.log'),
    });

  it('puts the cluster, the secrets and the uploads back into a new data folder', async () => {
    const sourceDir = join(root, 'source');
    const restoredDir = join(root, 'restored');
    const sourceUrl = await startCluster(sourceDir);
    const client = new pg.Client({ connectionString: sourceUrl });
    await client.connect();
    await client.query('create table ledger (id int primary key, amount int not null)');
    await client.query('insert into ledger values (1, 1200), (2, 900)');
    await client.end();
    const secrets = {
      'payload-keys': `local:${Buffer.alloc(32, 3).toString('base64')}`,
      'auth-secret': 'a'.repeat(64),
    };
    for (const [name, value] of Object.entries(secrets))
      writeFileSync(join(sourceDir, name), value);
    mkdirSync(join(sourceDir, 'files', 'org'), { recursive: true });
    writeFileSync(join(sourceDir, 'files', 'org', 'ebook.pdf'), '%PDF-1.7 the ebook');

    const sourceEnv = await embeddedEnv(sourceDir);
    const running = await runScript('db-backup', [], sourceEnv);
    assert.equal(running.code, 1);
    assert.match(running.output, /embedded PostgreSQL is running .*stop `npm start`/);
    await supervisor.stopAll();

    const saved = await runScript('db-backup', ['--to', join(root, 'backups')], sourceEnv);
    assert.equal(saved.code, 0, saved.output);
    const [backupName = ''] = readdirSync(join(root, 'backups'));
    const backup = join(root, 'backups', backupName);
    const manifest = JSON.parse(readFileSync(join(backup, 'manifest.json'), 'utf8'));
    assert.equal(manifest.database.kind, 'cluster');
    assert.deepEqual(manifest.secrets.files, ['payload-keys', 'auth-secret']);
    assert.equal(manifest.temporal, undefined, 'an external Temporal keeps its own state');

    const restoredEnv = await embeddedEnv(restoredDir);
    const intoConfigured = await runScript('db-restore', [backup], {
      ...restoredEnv,
      DATABASE_URL: sourceUrl,
    });
    assert.equal(intoConfigured.code, 1);
    assert.match(intoConfigured.output, /restore it with DATABASE_URL unset/);
    const put = await runScript('db-restore', [backup], restoredEnv);
    assert.equal(put.code, 0, put.output);
    const again = await runScript('db-restore', [backup], restoredEnv);
    assert.equal(again.code, 1);
    assert.match(again.output, /Restoring would replace .*postgres.*--force/);
    // A backup of another format, or from a newer Tollgate, is refused before anything changes.
    const altered = join(root, 'altered');
    cpSync(backup, altered, { recursive: true });
    const restoreAltered = async (change: Record<string, unknown>) => {
      writeFileSync(join(altered, 'manifest.json'), JSON.stringify({ ...manifest, ...change }));
      return runScript('db-restore', [altered], await embeddedEnv(join(root, 'elsewhere')));
    };
    const otherFormat = await restoreAltered({ format: 2 });
    assert.equal(otherFormat.code, 1);
    assert.match(otherFormat.output, /a backup of format 2; this Tollgate reads format 1 only/);
    const future = 'Migration29990101000000_from_the_future';
    const newer = await restoreAltered({
      database: { ...manifest.database, migrations: [...manifest.database.migrations, future] },
    });
    assert.equal(newer.code, 1);
    assert.match(
      newer.output,
      new RegExp(`migrations this Tollgate does not know \\(${future}\\)`),
    );
    assert.ok(!existsSync(join(root, 'elsewhere')));

    for (const [name, value] of Object.entries(secrets)) {
      assert.equal(readFileSync(join(restoredDir, name), 'utf8'), value);
    }
    assert.equal(
      readFileSync(join(restoredDir, 'files', 'org', 'ebook.pdf'), 'utf8'),
      '%PDF-1.7 the ebook',
    );
    const restored = new pg.Client({ connectionString: await startCluster(restoredDir) });
    await restored.connect();
    const { rows } = await restored.query('select id, amount from ledger order by id');
    await restored.end();
    assert.deepEqual(rows, [
      { id: 1, amount: 1200 },
      { id: 2, amount: 900 },
    ]);
  });
});
