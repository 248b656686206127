import pg from 'pg';

/**
 * A `pg` pool whose connections may be dropped by the server (a PostgreSQL restart, an
 * administrator's pg_terminate_backend) without taking the process down. pg-pool listens for a
 * connection's errors only while the connection is idle in the pool: one dropped while checked
 * out (inside a transaction, between its statements) emits 'error' with no listener, which Node
 * makes an uncaught exception. Here each connection reports such errors to `onError` instead;
 * the statement in flight fails by itself, and the pool discards the broken connection when it
 * is released.
 */
export function connectionPool(config: pg.PoolConfig, onError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
