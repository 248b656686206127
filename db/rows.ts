import { type EntityName, ReferenceKind } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The row an entity built in memory writes, keyed by column: for a statement that inserts it
 * beside other writes (`insert into t select * from jsonb_populate_record(null::t, $1)`), so
 * that one round trip writes what a flush would write in several, inside a transaction held
 * open between them. Build the entity with `em.create(…, { persist: false,
 * processOnCreateHooksEarly: true })`: its ids, timestamps and defaults are then set, and a
 * column left unset is null (a NOT NULL column then fails the insert).
 */
export function rowOf<Entity extends object>(
  em: EntityManager,
  entityName: EntityName<Entity>,
  entity: Entity,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const prop of em.getMetadata(entityName).props) {
    const [column] = prop.fieldNames ?? [];
    const written = prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE;
    if (!column || !written || prop.persist === false) continue;
    const value = (entity as Record<string, unknown>)[prop.name] ?? null;
    // A reference writes its key (every entity's is `id`).
    row[column] =
      prop.kind === ReferenceKind.MANY_TO_ONE
        ? ((value as { id: string } | null)?.id ?? null)
        : value;
  }
  return row;
}
