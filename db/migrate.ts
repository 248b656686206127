/**
 * Migrations from the command line:
 *   npm run db:migrate                       apply pending migrations
 *   npm run db:migration:create -- <name>    write a migration from the entity changes
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig, projectRoot } from '../config/env.ts';
import { migrateToLatest, migrationsPath, openOrm } from './orm.ts';

const [command = 'up', name] = process.argv.slice(2);
const { database } = loadConfig();
if (!database.url) {
  console.error(
    'DATABASE_URL must be set (a postgres:// URL); `npm start` sets it for its own database',
  );
  process.exit(1);
}
const orm = await openOrm(database.url);
try {
  if (command === 'up') {
    const applied = await migrateToLatest(orm);
    console.log(applied.length ? `Applied ${applied.join(', ')}` : 'No pending migrations');
  } else if (command === 'create') {
    const result = await orm.migrator.create(undefined, false, false, name);
    if (result.fileName) {
      // Generated code in the project's format, so the lint step of `npm test` accepts it.
      const biome = join(projectRoot, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');
      execFileSync(process.execPath, [
        biome,
        'format',
        '--write',
        join(migrationsPath, result.fileName),
      ]);
    }
    console.log(result.fileName ? `Wrote ${result.fileName}` : 'No entity changes to migrate');
  } else {
    console.error(`Unknown command ${command}: use "up" or "create <name>"`);
    process.exitCode = 1;
  }
} finally {
  await orm.close();
}
