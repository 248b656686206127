import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { projectRoot } from '../../config/env.ts';
import { apiNodeFlags } from '../../devstack/app-processes.ts';
import { findFreePort, waitUntilReady } from '../../devstack/supervisor.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** The API in its own process, as deployed (one process), to be killed. */
async function startApiChild(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...apiNodeFlags, join(projectRoot, 'api', 'server.ts')], {
    env: {
      ...process.env,
      TOLLGATE_API_HOST: '127.0.0.1',
      TOLLGATE_API_PORT: String(port),
      TOLLGATE_API_PROCESSES: '1',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  await waitUntilReady(
    'API child',
    async () => (await fetch(`http://127.0.0.1:${port}/api/health/ready`)).status === 200,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return child;
}

describe('ingestion when the API is killed mid-batch', () => {
  let api: TestApi;
  let seller: Seller;
  let database: pg.Client;
  const children: ChildProcess[] = [];

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    database = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await database.end();
    await api.close();
  });

  const count = async (sql: string, params: unknown[]) =>
    Number((await database.query(sql, params)).rows[0].count);
  const storedEvents = () =>
    count('select count(*) from events where organization_id = $1 and name = $2', [
      seller.organizationId,
      'crash_call',
    ]);

  it('stores a batch fully once, or not at all', async () => {
    const meter = await seller.polar.meters.create({
      name: 'Crash calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'crash_call' }],
      },
      aggregation: { func: 'count' },
    });
    const customer = await seller.polar.customers.create({ email: 'crash@example.com' });
    const batch = {
      events: Array.from({ length: 1000 }, (_, index) => ({
        name: 'crash_call',
        customer_id: customer.id,
        external_id: `crash-${index}`,
        metadata: { index },
      })),
    };
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const first = await startApiChild(port);
    children.push(first);

    // Hold the hourly rollups: the batch's transaction then stops after inserting its events,
    // waiting, and the process dies right there.
    await database.query('begin');
    await database.query('lock table meter_usage_hours in exclusive mode');
    const sent = fetch(`${url}/v1/events/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    }).catch((error: unknown) => error);
    const waiting = async () => {
      const { rows } = await database.query(
        `select pid from pg_locks where not granted and relation = 'meter_usage_hours'::regclass`,
      );
      return rows.length === 1 ? (rows[0].pid as number) : undefined;
    };
    await waitUntilReady('the batch blocked mid-transaction', async () => !!(await waiting()), {
      timeoutMs: 30_000,
    });
    const backend = (await waiting()) as number;
    assert.equal(
      await count(
        `select count(*) from pg_locks where pid = $1 and relation = 'events'::regclass and granted`,
        [backend],
      ),
      1,
      'its events are written, not committed',
    );
    first.kill('SIGKILL');
    await once(first, 'exit');
    assert.ok((await sent) instanceof Error, 'the request died with the process');
    await database.query('rollback');
    await waitUntilReady(
      'the dead connection gone',
      async () =>
        (await count('select count(*) from pg_stat_activity where pid = $1', [backend])) === 0,
      { timeoutMs: 30_000 },
    );
    assert.equal(await storedEvents(), 0, 'nothing of the killed batch is stored');

    // The client retries against the restarted API: the batch is stored, once.
    const second = await startApiChild(port);
    children.push(second);
    const retried = await callV1({ ...api, url }, seller.token, 'POST', '/v1/events/ingest', batch);
    assert.equal(retried.status, 200);
    assert.equal(retried.body.inserted, 1000);
    const again = await callV1({ ...api, url }, seller.token, 'POST', '/v1/events/ingest', batch);
    assert.equal(again.body.inserted, 0);
    assert.equal(await storedEvents(), 1000);
    assert.equal(
      await count(
        'select consumed_units::int as count from customer_meters where customer_id = $1 and meter_id = $2',
        [customer.id, meter.id],
      ),
      1000,
    );
  });
});
