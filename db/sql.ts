/**
 * SQL text and values meet here, and only here (db/sql.test.ts fails when another module imports
 * MikroORM's `raw` or kysely, or splices anything but code-spelled text into a statement).
 *
 * Why one place: MikroORM formats every query on the client. It replaces each `?` of the text
 * with a quoted value, in one pass, and sends the result as one string (the simple query
 * protocol, which runs several statements). One pass is safe: a substituted value is never
 * scanned again. Formatting twice is not: a `?` inside a value quoted by the first pass becomes a
 * placeholder of the second, which moves the next value out of its string literal. MikroORM
 * formats a `raw()` fragment early when it is a key compared with an operator
 * (`{ [raw(…)]: { $in: … } }`), a JSON property path (`{ metadata: { [key]: … } }`), an argument
 * of `qb.where(raw(…))` or an `orderBy` key. So:
 *
 * - `sql\`…${value}…\`` builds a fragment whose values are `?` parameters; `sqlText` splices text
 *   the code itself spells, never input.
 * - `sqlCondition` hands a fragment to MikroORM in the one form whose parameters are formatted
 *   with the rest of the query, once: the whole condition as a key, `[]` as its value.
 * - `orderByExpression` takes no parameters at all (MikroORM formats order keys on their own).
 * - `executeBound` runs a statement whose `$n` parameters PostgreSQL binds; `executePrepared`
 *   one it also parses and plans once per connection.
 */
import { raw } from '@mikro-orm/core';
import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
// MikroORM 7's own SQL layer (a dependency of @mikro-orm/sql), for its compiled-query type.
import { CompiledQuery } from 'kysely';

/** SQL text with its `?` parameters, in placeholder order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** Whether an interpolated value is an SQL fragment (spliced in) rather than a parameter. */
const isFragment = (value: unknown): value is SqlFragment =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SqlFragment).sql === 'string' &&
  Array.isArray((value as SqlFragment).params);

/**
 * Builds a fragment from a template: interpolated fragments are spliced in with their
 * parameters, any other value becomes a `?` parameter (an array one expands to a list, for
 * `in (…)`). Parameters thus stay in the order of their placeholders.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  let text = strings[0] ?? '';
  const params: unknown[] = [];
  values.forEach((value, index) => {
    if (isFragment(value)) {
      text += value.sql;
      params.push(...value.params);
    } else {
      text += '?';
      params.push(value);
    }
    text += strings[index + 1] ?? '';
  });
  return { sql: text, params };
}

/** SQL text spliced in as is: only for text the code itself spells (never request input). */
export const sqlText = (text: string): SqlFragment => ({ sql: text, params: [] });

/** Fragments joined by `separator` (e.g. ' and '). */
export function joinSql(fragments: SqlFragment[], separator: string): SqlFragment {
  return {
    sql: fragments.map((fragment) => fragment.sql).join(separator),
    params: fragments.flatMap((fragment) => fragment.params),
  };
}

/** `?, ?, …` for `count` parameters of an `in (…)` list. */
export const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** The entity's table alias as MikroORM writes it into a fragment, replaced when it builds the query. */
const entityRow = () => sqlText(raw((alias) => alias).sql);

/**
 * A MikroORM condition (for `$and`) that holds where `build(row)` does, `row` standing for the
 * entity's table alias: `sqlCondition((row) => sql\`lower(${row}.email) = ${email}\`)`.
 */
export function sqlCondition(build: (row: SqlFragment) => SqlFragment): Record<string, never[]> {
  const condition = build(entityRow());
  return { [raw(condition.sql, condition.params)]: [] };
}

/**
 * `?metadata[key]=value…` filters as conditions (for `$and`): under each key, the entity's
 * stored metadata value read as text is one of the wanted ones.
 */
export function metadataFilterConditions(filter: Record<string, string[]>) {
  return Object.entries(filter).map(([key, values]) =>
    sqlCondition((row) =>
      values.length ? sql`(${row}.metadata ->> ${key}::text) in (${values})` : sqlText('false'),
    ),
  );
}

/**
 * A row of the link table `table` joins the entity (`ownerColumn`) to one of `ids`
 * (`targetColumn`), e.g. products offering one of the benefits asked for. Table and columns are
 * names the code spells.
 */
export function linkedToAny(
  table: string,
  ownerColumn: string,
  targetColumn: string,
  ids: string[],
) {
  return sqlCondition(
    (row) =>
      sql`exists (select 1 from ${sqlText(table)} link where link.${sqlText(ownerColumn)} = ${row}.id
        and link.${sqlText(targetColumn)} in (${ids}))`,
  );
}

/**
 * An `orderBy` entry sorting by an SQL expression of the entity's row. MikroORM formats order
 * keys apart from the query, so the expression takes no parameters.
 */
export function orderByExpression(
  build: (row: SqlFragment) => SqlFragment,
  direction: 'asc' | 'desc',
): Record<string, 'asc' | 'desc'> {
  const expression = build(entityRow());
  if (expression.params.length) {
    throw new Error('An ORDER BY expression takes no parameters: MikroORM formats it on its own');
  }
  return { [raw(expression.sql)]: direction };
}

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

/**
 * Runs a statement PostgreSQL parses and plans once per connection under `name`, then only binds
 * and executes (pg's named statements): for the hottest reads, get-session first, whose parse
 * and plan cost twice their run. On the ORM's own pool, never inside a transaction. `name`
 * stands for this text alone, in every process, for the connection's life.
 */
export async function executePrepared<Row>(
  em: EntityManager,
  name: string,
  text: string,
  parameters: unknown[],
): Promise<Row[]> {
  const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
  const result = await pool.query({ name, text, values: parameters });
  return result.rows as Row[];
}
