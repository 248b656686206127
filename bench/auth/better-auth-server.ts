/**
 * Better Auth 1.3.34 itself, as the auth benchmark's reference: email and password with the
 * admin and apiKey plugins (Tollgate's feature set) on PostgreSQL, served by its Node adapter.
 * Rate limiting is off so that it does not cap the sign-in measurement. Creates its tables on
 * start-up, then prints "listening".
 *
 *   BENCH_DATABASE_URL=postgres://... BENCH_PORT=4000 BENCH_SECRET=... \
 *     node bench/auth/better-auth-server.ts
 */
import { createServer } from 'node:http';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db';
import { toNodeHandler } from 'better-auth/node';
import { admin, apiKey } from 'better-auth/plugins';
import pg from 'pg';

const { BENCH_DATABASE_URL: databaseUrl, BENCH_PORT: port, BENCH_SECRET: secret } = process.env;
if (!databaseUrl || !port || !secret) {
  throw new Error('BENCH_DATABASE_URL, BENCH_PORT and BENCH_SECRET must be set');
}

const baseURL = `http://127.0.0.1:${port}`;
// pg's default pool holds 10 connections, as many as Tollgate's MikroORM pool.
const database = new pg.Pool({ connectionString: databaseUrl });
const options = {
  baseURL,
  secret,
  database,
  emailAndPassword: { enabled: true },
  plugins: [admin(), apiKey()],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};

const { runMigrations } = await getMigrations(options);
await runMigrations();

const auth = betterAuth(options);
const server = createServer(toNodeHandler(auth));
server.listen(Number(port), '127.0.0.1', () => console.log(`listening on ${baseURL}`));

// Stopped at the end of the run, possibly with sign-ins still queued: no point finishing them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
