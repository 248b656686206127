import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import {
  childProcessesOf,
  isRunning,
  killProcess,
  type RestartableService,
  startRestartable,
  startRestartablePostgres,
  startRestartableTemporal,
} from '../bench/soak/faults.ts';
import { createSeller, startCommerceApi } from '../commerce/testing.ts';
import { loadConfig, loadRuntimeConfig } from '../config/env.ts';
import { migrateToLatest, openOrm } from '../db/orm.ts';
import { eventually } from './eventually.ts';
import { ensurePrivateDirectory } from './private-files.ts';
import { findFreePort } from './supervisor.ts';
import { locateGoTool } from './tools.ts';

/** What `read` answers once it stops failing (a service coming back), its errors meanwhile kept. */
const once = <T>(what: string, read: () => Promise<T>) =>
  eventually(
    () =>
      read().then(
        (value) => ({ value }),
        (error: unknown) => ({ error: String(error) }),
      ),
    (answer): answer is { value: T } => 'value' in answer,
    { what, timeoutMs: 60_000, intervalMs: 200 },
  ).then((answer) => (answer as { value: T }).value);

describe('the soak stack’s faults and restartable parts (bench/soak/faults.ts)', () => {
  const config = loadConfig();
  let directory: string;
  // Not below the private folder: PostgreSQL's own user must pass through to its data.
  const postgresDirectory = join(config.dataDir, 'test-soak-faults-postgres', String(process.pid));
  const services: RestartableService[] = [];

  before(() => {
    const parent = join(config.dataDir, 'test-soak-faults');
    ensurePrivateDirectory(parent);
    directory = mkdtempSync(join(parent, 'run-'));
  });
  after(async () => {
    for (const service of services) await service.stop();
    await rm(directory, { recursive: true, force: true });
    await rm(postgresDirectory, { recursive: true, force: true });
  });

  it('SIGKILLs a process with its group and children, resolving once all are gone', async () => {
    const shell = spawn('sh', ['-c', 'sleep 600 & sleep 600; wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = shell.pid ?? assert.fail('spawned');
    const children = await eventually(
      () => childProcessesOf(pid),
      (found) => found.length === 2,
      { what: 'the two sleeps' },
    );
    await killProcess(pid);
    assert.deepEqual(
      [pid, ...children].filter((victim) => isRunning(victim)),
      [],
    );
  });

  it('kills one copy of a pool (its primary then exits), reports an exit nobody asked for, and restarts it', async () => {
    const unasked: (number | null)[] = [];
    // A pool as the API and worker processes run: a primary whose copy dying ends it all.
    const pool = await startRestartable(
      'pool',
      async (supervisor) => {
        supervisor.spawn({
          name: 'pool',
          command: 'bash',
          args: ['-c', 'sleep 600 & sleep 600 & wait -n; kill $(jobs -p); exit 3'],
          logFile: join(directory, 'pool.log'),
        });
        return undefined;
      },
      { onUnexpectedExit: (code) => unasked.push(code), retryDelayMs: 100 },
    );
    services.push(pool);
    const copiesOf = (primary: number) =>
      eventually(
        () => childProcessesOf(primary),
        (found) => found.length === 2,
        { what: 'the two copies' },
      );
    const first = pool.pid() ?? assert.fail('the pool runs');
    const copies = await copiesOf(first);
    await pool.kill({ copy: true });
    assert.equal(isRunning(first), false);
    assert.equal(pool.pid(), undefined);
    // One copy was the victim; the primary stopped the other before it exited.
    assert.deepEqual(
      copies.filter((copy) => isRunning(copy)),
      [],
    );
    assert.deepEqual(unasked, []);

    await pool.restart();
    const second = pool.pid() ?? assert.fail('the pool runs again');
    assert.notEqual(second, first);
    // A copy dying on its own: the pool ends, and that exit is reported.
    const [copy] = await copiesOf(second);
    process.kill(copy ?? 0, 'SIGKILL');
    await eventually(
      () => unasked,
      (codes) => codes.length === 1,
      { what: 'the exit reported' },
    );
    assert.deepEqual(unasked, [3]);
    assert.equal(pool.unexpectedExits(), 1);
    await pool.restart();
    assert.ok(isRunning(pool.pid() ?? 0));
    await pool.stop();
    assert.equal(pool.unexpectedExits(), 1);
  });

  it('restarts the Temporal dev server on its SQLite file after a SIGKILL and a stop: same address, workflows kept', async () => {
    const binary = await locateGoTool('temporal', config.temporal.cliPath, () => {});
    assert.ok(binary, 'the Temporal CLI is installed');
    const temporal = await startRestartableTemporal(binary, {
      port: await findFreePort(),
      uiPort: undefined,
      databaseFile: join(directory, 'temporal.sqlite'),
      logFile: join(directory, 'temporal.log'),
    });
    services.push(temporal);
    const connection = await Connection.connect({ address: temporal.address ?? '' });
    const client = new Client({ connection });
    // A workflow no worker runs: it stays open, kept in the SQLite file only.
    const handle = await client.workflow.start('soakProbe', {
      taskQueue: 'soak-faults-probe',
      workflowId: `soak-probe-${process.pid}`,
    });
    const firstPid = temporal.pid();
    await temporal.kill();
    assert.equal(temporal.pid(), undefined);
    assert.equal(isRunning(firstPid ?? 0), false);
    await temporal.restart();
    // The same client, its connection broken by the kill, reaches the server again.
    const afterKill = await once('the workflow after the kill', () => handle.describe());
    assert.equal(afterKill.status.name, 'RUNNING');
    await temporal.restart();
    const afterStop = await once('the workflow after the stop', () => handle.describe());
    assert.equal(afterStop.runId, afterKill.runId);
    assert.equal(temporal.unexpectedExits(), 0);
    await handle.terminate('test over');
    await connection.close();
  });

  it('restarts PostgreSQL with its fast shutdown and after a SIGKILL: same address, data kept, the running API answering again', async () => {
    const postgres = await startRestartablePostgres({
      directory: postgresDirectory,
      port: await findFreePort(),
      database: 'tollgate_soak_faults',
      logFile: join(directory, 'postgres.log'),
    });
    services.push(postgres);
    const databaseUrl = postgres.address ?? assert.fail('PostgreSQL answers its URL');
    const orm = await openOrm(databaseUrl);
    await migrateToLatest(orm);
    await orm.close();
    const runtime = loadRuntimeConfig();
    const api = await startCommerceApi({
      ...runtime,
      database: { ...runtime.database, url: databaseUrl },
    });
    try {
      const seller = await createSeller(api);
      const product = await seller.polar.products.create({
        name: 'Kept across restarts',
        prices: [{ amountType: 'fixed', priceAmount: 1500 }],
      });
      await postgres.restart();
      const afterFastShutdown = await once('the product after a fast shutdown', () =>
        seller.polar.products.get({ id: product.id }),
      );
      assert.equal(afterFastShutdown.name, 'Kept across restarts');

      await postgres.kill();
      await postgres.restart();
      const written = await once('a product written after a SIGKILL', () =>
        seller.polar.products.create({
          name: 'Written after the crash',
          prices: [{ amountType: 'fixed', priceAmount: 900 }],
        }),
      );
      const listed = await seller.polar.products.list({});
      assert.deepEqual(
        listed.result.items.map((item) => item.id).sort(),
        [product.id, written.id].sort(),
      );
      assert.equal(postgres.unexpectedExits(), 0);
    } finally {
      await api.close();
    }
  });
});
