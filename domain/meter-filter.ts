/**
 * Meter filters and aggregations, evaluated in memory over usage events. The rules here are the
 * definition the SQL evaluation must agree with:
 *
 * - Property `name` and `source` address the event's string columns, `timestamp` its time in
 *   whole epoch seconds (floored); any other property addresses the event's metadata, with an
 *   optional `metadata.` prefix stripped (`metadata.name` is the metadata key `name`).
 * - A clause compares only like with like: a string operand with a string value, a number with an
 *   integer, a boolean with a boolean (`false < true`). Any other pairing, and a missing metadata
 *   key, makes the clause false, whatever its operator (`ne` and `not_like` included).
 * - Strings order by Unicode code point (PostgreSQL's `COLLATE "C"`); `like` / `not_like` test
 *   whether the value occurs literally (no wildcards) in a string operand.
 * - A filter without clauses matches every event.
 */

export const filterOperators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'not_like'] as const;
export type FilterOperator = (typeof filterOperators)[number];
export const filterConjunctions = ['and', 'or'] as const;
export type FilterConjunction = (typeof filterConjunctions)[number];
export const aggregationFunctions = ['count', 'sum', 'max', 'min', 'avg', 'unique'] as const;
export type AggregationFunction = (typeof aggregationFunctions)[number];

/** One comparison of an event property (`name`, `source`, `timestamp` or metadata) with a value. */
export interface MeterFilterClause {
  property: string;
  operator: FilterOperator;
  value: string | number | boolean;
}

/** Clauses joined by one conjunction; a clause may itself be a nested filter. */
export interface MeterFilter {
  conjunction: FilterConjunction;
  clauses: (MeterFilterClause | MeterFilter)[];
}

export type MeterAggregation =
  | { func: 'count' }
  | { func: Exclude<AggregationFunction, 'count'>; property: string };

/** A usage event as meters see it. */
export interface MeterEvent {
  name: string;
  source: string;
  timestamp: Date;
  metadata: Record<string, string | number | boolean>;
}

type Operand = string | number | boolean;

/** The value a property addresses in an event; undefined when the metadata lacks the key. */
export function operandOf(event: MeterEvent, property: string): Operand | undefined {
  if (property === 'name') return event.name;
  if (property === 'source') return event.source;
  if (property === 'timestamp') return Math.floor(event.timestamp.getTime() / 1000);
  const key = property.startsWith('metadata.') ? property.slice('metadata.'.length) : property;
  return Object.hasOwn(event.metadata, key) ? event.metadata[key] : undefined;
}

/** Unicode code point order, as PostgreSQL's "C" collation compares UTF-8 text. */
function compareText(left: string, right: string): number {
  // UTF-16 units order as code points do unless the first difference involves a surrogate.
  const common = Math.min(left.length, right.length);
  let at = 0;
  while (at < common && left.charCodeAt(at) === right.charCodeAt(at)) at++;
  if (at === common) return left.length - right.length;
  const leftUnit = left.charCodeAt(at);
  const rightUnit = right.charCodeAt(at);
  const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;
  if (!isSurrogate(leftUnit) && !isSurrogate(rightUnit)) return leftUnit - rightUnit;
  const leftPoints = Array.from(left, (char) => char.codePointAt(0) as number);
  const rightPoints = Array.from(right, (char) => char.codePointAt(0) as number);
  const length = Math.min(leftPoints.length, rightPoints.length);
  for (let index = 0; index < length; index++) {
    const difference = (leftPoints[index] as number) - (rightPoints[index] as number);
    if (difference !== 0) return difference;
  }
  return leftPoints.length - rightPoints.length;
}

/** -1, 0 or 1 when operand and value have the same type, else null (the clause is then false). */
function compareSameType(operand: Operand, value: Operand): number | null {
  if (typeof operand === 'string' && typeof value === 'string') {
    return Math.sign(compareText(operand, value));
  }
  if (typeof operand === 'number' && typeof value === 'number') {
    return Math.sign(operand - value);
  }
  if (typeof operand === 'boolean' && typeof value === 'boolean') {
    return Math.sign(Number(operand) - Number(value));
  }
  return null;
}

function matchesClause(clause: MeterFilterClause, event: MeterEvent): boolean {
  const operand = operandOf(event, clause.property);
  if (operand === undefined) return false;
  const { operator, value } = clause;
  if (operator === 'like' || operator === 'not_like') {
    if (typeof operand !== 'string' || typeof value !== 'string') return false;
    return operand.includes(value) === (operator === 'like');
  }
  const order = compareSameType(operand, value);
  if (order === null) return false;
  switch (operator) {
    case 'eq':
      return order === 0;
    case 'ne':
      return order !== 0;
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
    case 'lt':
      return order < 0;
    case 'lte':
      return order <= 0;
  }
}

const isNestedFilter = (clause: MeterFilterClause | MeterFilter): clause is MeterFilter =>
  'clauses' in clause;

/** Whether the event passes the filter (see the module comment for the exact rules). */
export function matchesFilter(filter: MeterFilter, event: MeterEvent): boolean {
  const matches = (clause: MeterFilterClause | MeterFilter) =>
    isNestedFilter(clause) ? matchesFilter(clause, event) : matchesClause(clause, event);
  if (filter.clauses.length === 0) return true;
  return filter.conjunction === 'and'
    ? filter.clauses.every(matches)
    : filter.clauses.some(matches);
}

/** An exact decimal: `units / 10^scale`. */
interface Decimal {
  units: bigint;
  scale: number;
}

/** The decimal a JSON number denotes, read from its shortest round-trip form (`0.1` is 0.1). */
function decimalOf(value: number): Decimal {
  const [mantissa = '0', exponentText = '0'] = String(value).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const scale = fraction.length - Number(exponentText);
  const units = BigInt(whole + fraction);
  return scale >= 0 ? { units, scale } : { units: units * 10n ** BigInt(-scale), scale: 0 };
}

const rescale = (decimal: Decimal, scale: number) =>
  decimal.units * 10n ** BigInt(scale - decimal.scale);

function addDecimals(left: Decimal, right: Decimal): Decimal {
  const scale = Math.max(left.scale, right.scale);
  return { units: rescale(left, scale) + rescale(right, scale), scale };
}

/** Plain decimal notation without trailing zeros: `0.3`, `-12`, `0.000001`. */
function decimalText({ units, scale }: Decimal): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${units < 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Decimal places of an average: the scale of the numeric columns holding meter units. */
export const averageScale = 12;

/** `total / count` rounded half away from zero to `averageScale` places (PostgreSQL's round). */
function divideDecimal(total: Decimal, count: number): Decimal {
  // Ten times the quotient in units of 10^-averageScale, truncated: its last digit rounds.
  const tenfold =
    (total.units * 10n ** BigInt(averageScale + 1)) / (BigInt(count) * 10n ** BigInt(total.scale));
  return { units: (tenfold + (tenfold < 0n ? -5n : 5n)) / 10n, scale: averageScale };
}

const isNumber = (operand: Operand | undefined): operand is number =>
  typeof operand === 'number' && Number.isFinite(operand);

/**
 * Aggregates events (already filtered) as a decimal string. `count` counts them; `sum`, `max`,
 * `min` and `avg` take the numeric values of the property (events where it is missing or not a
 * number are left out); `unique` counts the distinct values the property takes, a value's type
 * included (`1` and `'1'` differ). Sums are exact; averages are rounded to `averageScale`
 * places; with no value to aggregate every function answers `0`, as meter quantities do.
 */
export function aggregate(aggregation: MeterAggregation, events: readonly MeterEvent[]): string {
  if (aggregation.func === 'count') return String(events.length);
  const operands = events.map((event) => operandOf(event, aggregation.property));
  if (aggregation.func === 'unique') {
    const present = operands.filter((operand) => operand !== undefined);
    return String(new Set(present.map((operand) => `${typeof operand}:${operand}`)).size);
  }
  const numbers = operands.filter(isNumber);
  if (numbers.length === 0) return '0';
  switch (aggregation.func) {
    case 'max':
      return decimalText(decimalOf(numbers.reduce((left, right) => Math.max(left, right))));
    case 'min':
      return decimalText(decimalOf(numbers.reduce((left, right) => Math.min(left, right))));
    case 'sum':
    case 'avg': {
      const total = numbers.map(decimalOf).reduce(addDecimals);
      return decimalText(aggregation.func === 'sum' ? total : divideDecimal(total, numbers.length));
    }
  }
}
