import type {
  MeterAggregation,
  MeterFilter,
  MeterFilterClause,
} from '../../../../domain/meter-filter.ts';
import { operatorOptions } from './form';

const operatorWords = Object.fromEntries(
  operatorOptions.map((option) => [option.value, option.label]),
);

/** A filter in words: `name equals "tokens" and source equals "api"`. */
export function filterText(filter: MeterFilter): string {
  if (filter.clauses.length === 0) return 'every event';
  return filter.clauses
    .map((item) => ('property' in item ? clauseText(item) : `(${filterText(item)})`))
    .join(` ${filter.conjunction} `);
}

const clauseText = (clause: MeterFilterClause) =>
  `${clause.property} ${operatorWords[clause.operator] ?? clause.operator} ${JSON.stringify(clause.value)}`;

/** An aggregation in words: `count`, `sum of tokens`. */
export const aggregationText = (aggregation: MeterAggregation) =>
  aggregation.func === 'count'
    ? 'count of events'
    : `${aggregation.func} of ${aggregation.property}`;
