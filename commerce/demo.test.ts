import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoAccount, seedDemoData } from '../accounts/demo-account.ts';
import { startApiServer } from '../api/server.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { User } from '../db/entities/index.ts';
import { migrateToLatest, openOrm } from '../db/orm.ts';
import { dropDatabase, ensureDatabase } from '../devstack/postgres.ts';
import { seedDemoShop, setUpDemo } from './demo.ts';
import { polarClient, startCommerceApi, type TestApi } from './testing.ts';

describe('the demo shop of npm start', () => {
  let api: TestApi;
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-demo-'));

  before(async () => {
    api = await startCommerceApi();
  });
  after(async () => {
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('is made once, with a token that drives the Polar SDK', async () => {
    const publicUrl = api.config.api.publicUrl;
    await seedDemoData(api.orm);
    const tokenFile = join(folder, 'demo-access-token');
    await seedDemoShop(api.orm, { tokenFile, publicUrl });
    const again = join(folder, 'second-token');
    await seedDemoShop(api.orm, { tokenFile: again, publicUrl });
    assert.equal(existsSync(again), false, 'a second run changes nothing');

    const polar = polarClient(api.url, readFileSync(tokenFile, 'utf8').trim());
    const page = await polar.products.list({ sorting: ['name'] });
    assert.deepEqual(
      page.result.items.map((product) => [product.name, product.isRecurring]),
      [
        ['Lifetime license', false],
        ['Pro plan', true],
      ],
    );
  });
});

/**
 * `npm start` with NODE_ENV=production against a database of its own: nobody finds the
 * published demo admin (or its token) there.
 */
describe('demo data outside development', () => {
  const config = loadRuntimeConfig();
  const databaseUrl = new URL(config.database.url);
  databaseUrl.pathname = `${databaseUrl.pathname}_demo_${process.pid}`;
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-demo-production-'));
  const tokenFile = join(folder, 'demo-access-token');
  let api: Awaited<ReturnType<typeof startApiServer>>;

  before(async () => {
    await ensureDatabase(databaseUrl.href);
    const migrating = await openOrm(databaseUrl.href);
    await migrateToLatest(migrating);
    await migrating.close();
    api = await startApiServer(
      { ...config, database: { ...config.database, url: databaseUrl.href } },
      { host: '127.0.0.1', port: 0 },
    );
  });
  after(async () => {
    await api.close();
    await dropDatabase(databaseUrl.href);
    rmSync(folder, { recursive: true, force: true });
  });

  const signInAsDemo = () =>
    fetch(`${api.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(demoAccount),
    });

  it('makes no demo user or token in production: the demo sign-in is refused', async () => {
    const publicUrl = api.config.api.publicUrl;
    for (const env of ['production', 'test'] as const) {
      assert.deepEqual(await setUpDemo(api.orm, { env, tokenFile, publicUrl }), {
        seeded: false,
        leftoverDemoUser: false,
      });
    }
    assert.equal(existsSync(tokenFile), false);
    assert.equal(await api.orm.em.fork().count(User, { email: demoAccount.email }), 0);
    assert.equal((await signInAsDemo()).status, 401);
  });

  it('makes them in development, and production start-up then reports the leftover', async () => {
    const publicUrl = api.config.api.publicUrl;
    const development = { env: 'development' as const, tokenFile, publicUrl };
    assert.deepEqual(await setUpDemo(api.orm, development), { seeded: true });
    assert.equal((await signInAsDemo()).status, 200);
    assert.deepEqual(await setUpDemo(api.orm, { ...development, env: 'production' }), {
      seeded: false,
      leftoverDemoUser: true,
    });
  });
});
