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
