/**
 * Meter filters and aggregations as PostgreSQL over the `events` table, with exactly the rules of
 * the pure evaluator in domain/meter-filter.ts (its module comment is the definition):
 *
 * - Every clause is a strict boolean (never NULL): a missing metadata key or a value of another
 *   JSON type than the clause's operand yields `false`, so `ne` and `not_like` stay false too.
 * - Metadata numbers are compared as `numeric` (jsonb keeps them exact), strings under
 *   `COLLATE "C"` (code point order), booleans as booleans.
 * - `like` / `not_like` are literal substring tests (`strpos`): no character of the value is a
 *   wildcard, so nothing needs escaping.
 *
 * Values are passed as `?` parameters, the form MikroORM's `em.execute(sql, params)` takes; the
 * SQL text itself never contains a `?` of its own.
 */
import type {
  AggregationFunction,
  FilterOperator,
  MeterAggregation,
  MeterFilter,
  MeterFilterClause,
} from '../domain/meter-filter.ts';
import { averageScale } from '../domain/meter-filter.ts';
import { joinSql, type SqlFragment, sql, sqlText } from './sql.ts';

const comparisonSql: Record<Exclude<FilterOperator, 'like' | 'not_like'>, string> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

const FALSE: SqlFragment = { sql: 'false', params: [] };

/** The metadata key a property addresses, or null for the `name`/`source`/`timestamp` columns. */
function metadataKeyOf(property: string): string | null {
  if (property === 'name' || property === 'source' || property === 'timestamp') return null;
  return property.startsWith('metadata.') ? property.slice('metadata.'.length) : property;
}

/** The comparison of a text expression (already collated "C") with a string value. */
function textComparison(
  expression: string,
  expressionParams: unknown[],
  operator: FilterOperator,
  value: string,
): SqlFragment {
  if (operator === 'like' || operator === 'not_like') {
    return {
      sql: `(strpos(${expression}, ?) ${operator === 'like' ? '>' : '='} 0)`,
      params: [...expressionParams, value],
    };
  }
  return {
    sql: `${expression} ${comparisonSql[operator]} ?`,
    params: [...expressionParams, value],
  };
}

const columnOf = (alias: string, column: string) => `${alias}."${column}"`;

/** Whole epoch seconds of the event's time, as the evaluator's `timestamp` property. */
const epochSecondsOf = (alias: string) =>
  `floor(extract(epoch from ${columnOf(alias, 'timestamp')}))`;

function clauseToSql(clause: MeterFilterClause, alias: string): SqlFragment {
  const { property, operator, value } = clause;
  const isLike = operator === 'like' || operator === 'not_like';
  const key = metadataKeyOf(property);
  if (key === null) {
    if (property === 'timestamp') {
      if (typeof value !== 'number' || isLike) return FALSE;
      return {
        sql: `${epochSecondsOf(alias)} ${comparisonSql[operator]} ?::numeric`,
        params: [String(value)],
      };
    }
    if (typeof value !== 'string') return FALSE;
    return textComparison(`${columnOf(alias, property)} collate "C"`, [], operator, value);
  }
  const json = `${columnOf(alias, 'metadata')} -> ?::text`;
  // CASE keeps the clause false (not NULL) when the key is missing or of another type, and
  // keeps the cast from running on values it does not apply to.
  const typed = (jsonType: string, comparison: SqlFragment): SqlFragment => ({
    sql: `(case when jsonb_typeof(${json}) = '${jsonType}' then ${comparison.sql} else false end)`,
    params: [key, ...comparison.params],
  });
  if (typeof value === 'string') {
    return typed(
      'string',
      textComparison(
        `(${columnOf(alias, 'metadata')} ->> ?::text) collate "C"`,
        [key],
        operator,
        value,
      ),
    );
  }
  if (isLike) return FALSE;
  if (typeof value === 'number') {
    return typed('number', {
      sql: `(${json})::numeric ${comparisonSql[operator]} ?::numeric`,
      params: [key, String(value)],
    });
  }
  return typed('boolean', {
    sql: `(${json})::boolean ${comparisonSql[operator]} ?::boolean`,
    params: [key, value],
  });
}

const isNestedFilter = (clause: MeterFilterClause | MeterFilter): clause is MeterFilter =>
  'clauses' in clause;

/**
 * A boolean SQL condition over the event row aliased `alias` that holds exactly when
 * `matchesFilter(filter, event)` does.
 */
export function meterFilterToSql(filter: MeterFilter, alias = 'e'): SqlFragment {
  if (filter.clauses.length === 0) return { sql: 'true', params: [] };
  const parts = filter.clauses.map((clause) =>
    isNestedFilter(clause) ? meterFilterToSql(clause, alias) : clauseToSql(clause, alias),
  );
  return sql`(${joinSql(parts, ` ${filter.conjunction} `)})`;
}

/**
 * The numeric value an aggregation reads from the event row, NULL where the property is missing
 * or not a number (so SQL aggregates leave the event out, as the evaluator does).
 */
export function meterValueToSql(property: string, alias = 'e'): SqlFragment {
  const key = metadataKeyOf(property);
  if (key === null) {
    return property === 'timestamp'
      ? { sql: epochSecondsOf(alias), params: [] }
      : { sql: 'null::numeric', params: [] };
  }
  const json = `${columnOf(alias, 'metadata')} -> ?::text`;
  return {
    sql: `(case when jsonb_typeof(${json}) = 'number' then (${json})::numeric end)`,
    params: [key, key],
  };
}

/**
 * The operand a property addresses, of whatever type, NULL where the metadata lacks the key: what
 * `unique` counts distinct occurrences of (a jsonb value for metadata, so `1` and `"1"` differ).
 */
export function meterOperandToSql(property: string, alias = 'e'): SqlFragment {
  const key = metadataKeyOf(property);
  if (key === null) {
    const column = property === 'timestamp' ? epochSecondsOf(alias) : columnOf(alias, property);
    return { sql: column, params: [] };
  }
  return { sql: `(${columnOf(alias, 'metadata')} -> ?::text)`, params: [key] };
}

/**
 * The mean of values given by their `sum` and `count` (SQL expressions, e.g. summed partial
 * aggregates) rounded half away from zero to `averageScale` places, computed exactly (integer
 * division, no division scale); 0 when the count is 0 or NULL.
 */
export function averageOfSql(sum: SqlFragment, count: SqlFragment): SqlFragment {
  const shift = sqlText(`1${'0'.repeat(averageScale + 1)}`);
  const unit = sqlText(`0.${'0'.repeat(averageScale - 1)}1`);
  return sql`coalesce(round(div((${sum}) * ${shift}, nullif(${count}, 0)) * 0.1) * ${unit}, 0)`;
}

/**
 * `func` over the non-null values of a numeric SQL expression, as the evaluator aggregates
 * numbers: exact sums, averages rounded to `averageScale` places, 0 when there is no value.
 * `count` counts the values, `unique` their distinct ones.
 */
export function numericAggregateSql(func: AggregationFunction, value: SqlFragment): SqlFragment {
  switch (func) {
    case 'count':
      return sql`count(${value})::numeric`;
    case 'unique':
      return sql`count(distinct ${value})::numeric`;
    case 'sum':
      return sql`coalesce(sum(${value}), 0)`;
    case 'max':
      return sql`coalesce(max(${value}), 0)`;
    case 'min':
      return sql`coalesce(min(${value}), 0)`;
    case 'avg':
      return averageOfSql(sql`sum(${value})`, sql`count(${value})`);
  }
}

/**
 * An aggregate SQL expression over the events of a group that yields what
 * `aggregate(aggregation, events)` does, as `numeric` (0 when there is nothing to aggregate).
 * Render it with `trim_scale(...)::text` to get the evaluator's decimal string.
 */
export function meterAggregationToSql(aggregation: MeterAggregation, alias = 'e'): SqlFragment {
  if (aggregation.func === 'count') return sqlText('count(*)::numeric');
  const value =
    aggregation.func === 'unique'
      ? meterOperandToSql(aggregation.property, alias)
      : meterValueToSql(aggregation.property, alias);
  return numericAggregateSql(aggregation.func, value);
}
