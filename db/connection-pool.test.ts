import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { connectionPool } from './connection-pool.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('the connection pool', () => {
  const errors: Error[] = [];
  const pool = connectionPool({ connectionString: databaseUrl, max: 2 }, (error) => {
    errors.push(error);
  });
  after(() => pool.end());

  it('survives the server dropping a connection that is checked out, and serves on', async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const {
        rows: [backend],
      } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      // What a PostgreSQL restart does to each backend: terminated while its transaction is open.
      const administrator = new pg.Client({ connectionString: databaseUrl });
      await administrator.connect();
      const dropped = once(client, 'error');
      await administrator.query('select pg_terminate_backend($1)', [backend?.pid]);
      await administrator.end();
      await dropped;

      // Reported, as many times as pg emits it (the server's message, then the closed socket).
      assert.ok(errors.length > 0);
      await assert.rejects(client.query('select 1'));
    } finally {
      // Released however the test went: the pool then ends instead of waiting for it.
      client.release();
    }
    const { rows } = await pool.query<{ answer: number }>('select 41 + 1 as answer');
    assert.deepEqual(rows, [{ answer: 42 }]);
  });
});
