/**
 * `npm run db:backup [-- --to <folder>]`: saves the database, the Temporal dev server's state,
 * the uploaded files and the data folder's secrets into a new timestamped folder (default:
 * the data folder's backups/). Run it with `npm start` stopped; see devstack/backups.ts.
 */
import { parseArgs } from 'node:util';
import { ConfigurationError, loadConfig } from '../config/env.ts';
import { BackupError, backUp } from '../devstack/backups.ts';

const say = (line: string) => console.log(`[backup] ${line}`);

try {
  const { values } = parseArgs({ options: { to: { type: 'string' } } });
  const { directory, manifest } = await backUp(loadConfig(), { into: values.to, log: say });
  say(`Backup written to ${directory}`);
  say(`Schema level: ${manifest.database.migrations.at(-1) ?? 'no migrations applied'}`);
  say('Restore it with: npm run db:restore -- <that folder>');
} catch (error) {
  const known =
    error instanceof BackupError ||
    error instanceof ConfigurationError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(known ? `[backup] ${(error as Error).message}` : error);
  process.exit(1);
}
