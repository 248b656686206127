import type { EntityManager } from '@mikro-orm/postgresql';
// MikroORM 7's own SQL layer (a dependency of @mikro-orm/sql), for its compiled-query type.
import { CompiledQuery } from 'kysely';

/**
 * Runs SQL whose `$1`-style parameters PostgreSQL binds, instead of having them spliced into
 * the text as `em.execute` does: escaping the large JSON parameters of an ingested batch into
 * the statement costs more than running it. Inside a transaction, it runs in it.
 */
export async function executeBound<Row>(
  em: EntityManager,
  text: string,
  parameters: unknown[],
): Promise<Row[]> {
  const result = await em.getKysely().executeQuery(CompiledQuery.raw(text, parameters));
  return result.rows as Row[];
}
