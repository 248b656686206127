import { join } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { requestEntityManager } from './request-context.ts';

export const migrationsPath = join(import.meta.dirname, 'migrations');

export function ormOptions(databaseUrl: string, maxConnections = 10): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // Entities are plain `defineEntity` schemas: nothing to discover through reflection.
    discovery: { warnWhenNoEntities: true },
    migrations: {
      path: migrationsPath,
      glob: '!(*.d).ts',
      emit: 'ts',
      // The snapshot is written by `npm run db:migration:create` only, never by a test run.
      snapshotOnMigrate: false,
      snapshotName: '.schema-snapshot',
      silent: true,
    },
    pool: { min: 0, max: maxConnections },
    // `orm.em` used while serving a request is that request's own fork (db/request-context.ts).
    context: requestEntityManager,
  });
}

export type Orm = MikroORM;

/** `maxConnections`: the pool's size (10 unless the process runs many transactions at once). */
export function openOrm(databaseUrl: string, maxConnections?: number): Promise<Orm> {
  return MikroORM.init(ormOptions(databaseUrl, maxConnections));
}

/** Applies every pending migration; answers the names it applied. */
export async function migrateToLatest(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
