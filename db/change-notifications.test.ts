import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ReadCache } from '../commerce/http/read-cache.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { createLogger } from '../config/logger.ts';
import {
  announceChange,
  ChangeListener,
  type ChangeTopic,
  changeTopics,
} from './change-notifications.ts';
import { type Orm, openOrm } from './orm.ts';

/** Resolves with the first change `listener` hears of `key`, or null after `ms`. */
function nextChange(listener: ChangeListener, key: string, ms = 2000) {
  return new Promise<ChangeTopic | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    listener.onChange((topic, changed) => {
      if (changed !== key) return;
      clearTimeout(timer);
      resolve(topic);
    });
  });
}

/** Resolves with the payload of the first notification on `channel`, or null after `ms`. */
function nextNotification(client: pg.Client, channel: string, payload: string, ms = 2000) {
  return new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    client.on('notification', (notification) => {
      if (notification.channel !== channel || notification.payload !== payload) return;
      clearTimeout(timer);
      resolve(notification.payload);
    });
  });
}

describe('change notifications', () => {
  const { database, logLevel } = loadRuntimeConfig();
  const logger = createLogger('test', logLevel);
  let orm: Orm;
  let thisProcess: ChangeListener;
  // Stands for another API process: it hears changes only through PostgreSQL.
  let otherProcess: pg.Client;

  before(async () => {
    orm = await openOrm(database.url);
    thisProcess = new ChangeListener(database.url, logger);
    await thisProcess.start();
    otherProcess = new pg.Client({ connectionString: database.url });
    await otherProcess.connect();
    await otherProcess.query(`listen ${changeTopics.catalog}`);
  });
  after(async () => {
    await otherProcess.end();
    await thisProcess.close();
    await orm.close();
  });

  it('reach other processes when the announcing transaction commits', async () => {
    const key = `org-${Date.now()}-committed`;
    const heard = nextNotification(otherProcess, changeTopics.catalog, key);
    await orm.em.fork().transactional(async (tx) => {
      await announceChange(tx, 'catalog', key);
    });
    assert.equal(await heard, key);
  });

  it('never leave a transaction that rolls back', async () => {
    const key = `org-${Date.now()}-rolled-back`;
    const heard = nextNotification(otherProcess, changeTopics.catalog, key, 500);
    await assert.rejects(
      orm.em.fork().transactional(async (tx) => {
        await announceChange(tx, 'catalog', key);
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.equal(await heard, null);
  });

  it('are listened to again after the connection drops, caching nothing meanwhile', async () => {
    const listener = new ChangeListener(database.url, logger);
    await listener.start();
    const cache = new ReadCache<number>(listener, 'catalog', {
      maxAgeMs: 60_000,
      maxKeysPerScope: 10,
      maxScopes: 10,
    });
    let loads = 0;
    const load = async () => ++loads;
    await cache.read('org-e', 'page-1', load);
    const droppedPid = listener.backendPid;
    await orm.em.fork().getConnection().execute('select pg_terminate_backend(?)', [droppedPid]);
    while (listener.connected) await sleep(10);
    assert.equal(await cache.read('org-e', 'page-1', load), 2, 'dropped on disconnect');
    assert.equal(await cache.read('org-e', 'page-1', load), 3, 'not kept while disconnected');

    const deadline = Date.now() + 10_000;
    while (!listener.connected && Date.now() < deadline) await sleep(50);
    assert.ok(listener.connected, 'reconnected');
    assert.notEqual(listener.backendPid, droppedPid);
    const key = `org-${Date.now()}-after-reconnect`;
    const heard = nextChange(listener, key);
    await otherProcess.query('select pg_notify($1, $2)', [changeTopics.catalog, key]);
    assert.equal(await heard, 'catalog');
    await listener.close();
  });

  describe('a read cache built on them', () => {
    const limits = { maxAgeMs: 60_000, maxKeysPerScope: 10, maxScopes: 10 };

    it('serves what it stored until the scope changes', async () => {
      const cache = new ReadCache<number>(thisProcess, 'catalog', limits);
      let loads = 0;
      const load = async () => ++loads;
      assert.equal(await cache.read('org-a', 'page-1', load), 1);
      assert.equal(await cache.read('org-a', 'page-1', load), 1);
      assert.equal(await cache.read('org-b', 'page-1', load), 2);
      const heard = nextChange(thisProcess, 'org-a');
      await announceChange(orm.em.fork() as SqlEntityManager, 'catalog', 'org-a');
      await heard;
      assert.equal(await cache.read('org-a', 'page-1', load), 3, 'org-a is read again');
      assert.equal(await cache.read('org-b', 'page-1', load), 2, 'org-b is untouched');
    });

    it('drops every variant of a key at once, on a change to any of its topics', async () => {
      const cache = new ReadCache<string>(thisProcess, ['customerState', 'catalog'], {
        ...limits,
        maxVariantsPerKey: 10,
      });
      let loads = 0;
      const load = (what: string) => async () => `${what} #${++loads}`;
      const read = (key: string, variant: string) =>
        cache.read('org-v', key, load(variant), { variant });
      assert.equal(await read('customer-1', '/orders'), '/orders #1');
      assert.equal(await read('customer-1', '/subscriptions'), '/subscriptions #2');
      assert.equal(await read('customer-2', '/orders'), '/orders #3');
      assert.equal(await read('customer-1', '/orders'), '/orders #1', 'variants are kept apart');

      const heard = nextChange(thisProcess, 'org-v/customer-1');
      await announceChange(orm.em.fork() as SqlEntityManager, 'customerState', 'org-v/customer-1');
      await heard;
      assert.equal(await read('customer-1', '/orders'), '/orders #4');
      assert.equal(await read('customer-1', '/subscriptions'), '/subscriptions #5');
      assert.equal(await read('customer-2', '/orders'), '/orders #3', 'another key is untouched');

      const catalogChanged = nextChange(thisProcess, 'org-v');
      await announceChange(orm.em.fork() as SqlEntityManager, 'catalog', 'org-v');
      await catalogChanged;
      assert.equal(await read('customer-2', '/orders'), '/orders #6', 'the whole scope dropped');
    });

    it('does not keep a read that a change overtook', async () => {
      const cache = new ReadCache<string>(thisProcess, 'catalog', limits);
      const stale = cache.read('org-c', 'page-1', async () => {
        cache.invalidate('org-c'); // the change lands while the old rows are being read
        await sleep(5);
        return 'before the change';
      });
      assert.equal(await stale, 'before the change');
      assert.equal(await cache.read('org-c', 'page-1', async () => 'after'), 'after');
    });

    it('keeps nothing the caller finds not worth keeping, and nothing while disconnected', async () => {
      const cache = new ReadCache<string | null>(thisProcess, 'accessToken', limits);
      let loads = 0;
      const unknown = async () => {
        loads++;
        return null;
      };
      await cache.read('made-up', '', unknown, { worthKeeping: (found) => found !== null });
      await cache.read('made-up', '', unknown, { worthKeeping: (found) => found !== null });
      assert.equal(loads, 2);

      const offline = new ChangeListener(database.url, logger);
      const uncached = new ReadCache<number>(offline, 'catalog', limits);
      let reads = 0;
      await uncached.read('org-d', 'page-1', async () => ++reads);
      await uncached.read('org-d', 'page-1', async () => ++reads);
      assert.equal(reads, 2, 'a listener that never connected caches nothing');
    });
  });
});
