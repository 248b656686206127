/**
 * `npm run db:restore -- <backup folder> [--force]`: puts a backup made by `npm run db:backup`
 * back where `npm start` reads it, into an empty database. It refuses to replace a database
 * holding tables, or the data folder's Temporal state, uploads or secrets, unless --force (the
 * database is then dropped, the files moved aside). Run it with `npm start` stopped.
 */
import { parseArgs } from 'node:util';
import { ConfigurationError, loadConfig } from '../config/env.ts';
import { BackupError, restore } from '../devstack/backups.ts';

const say = (line: string) => console.log(`[restore] ${line}`);

try {
  const { values, positionals } = parseArgs({
    options: { force: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const [directory, ...extra] = positionals;
  if (!directory || extra.length) {
    throw new BackupError('Usage: npm run db:restore -- <backup folder> [--force]');
  }
  const manifest = await restore(loadConfig(), directory, { force: values.force, log: say });
  say(`Restored the backup of ${manifest.createdAt} (Tollgate ${manifest.tollgate})`);
  say('`npm start` applies any newer migrations and resumes the workflows');
} catch (error) {
  const known =
    error instanceof BackupError ||
    error instanceof ConfigurationError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(known ? `[restore] ${(error as Error).message}` : error);
  process.exit(1);
}
