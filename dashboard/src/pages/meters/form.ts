/**
 * The meter form's values and the MeterCreate/MeterUpdate body they make, checked first with
 * the API's own schemas. The editor shows the filter's top-level clauses; nested groups of a
 * meter made through the API are kept as they are.
 */
import { meterCreateInput, meterUpdateInput } from '../../../../commerce/meters/schemas.ts';
import type {
  AggregationFunction,
  FilterConjunction,
  FilterOperator,
  MeterFilter,
  MeterFilterClause,
} from '../../../../domain/meter-filter.ts';
import type { Meter } from './api';

export type ValueKind = 'text' | 'number' | 'boolean';

export interface ClauseDraft {
  property: string;
  operator: FilterOperator;
  kind: ValueKind;
  /** As typed (`true`/`false` for booleans). */
  value: string;
}

/** Keyed as the body is (`filter`, `aggregation`), so the API's errors find their inputs. */
export interface MeterFormValues {
  name: string;
  filter: {
    conjunction: FilterConjunction;
    clauses: ClauseDraft[];
    /** Nested groups, kept untouched. */
    groups: MeterFilter[];
  };
  aggregation: { func: AggregationFunction; property: string };
}

export const operatorOptions: { value: FilterOperator; label: string }[] = [
  { value: 'eq', label: 'equals' },
  { value: 'ne', label: 'does not equal' },
  { value: 'gt', label: 'greater than' },
  { value: 'gte', label: 'greater than or equal' },
  { value: 'lt', label: 'less than' },
  { value: 'lte', label: 'less than or equal' },
  { value: 'like', label: 'contains' },
  { value: 'not_like', label: 'does not contain' },
];

export const aggregationOptions: { value: AggregationFunction; label: string }[] = [
  { value: 'count', label: 'Count events' },
  { value: 'sum', label: 'Sum of a property' },
  { value: 'max', label: 'Maximum of a property' },
  { value: 'min', label: 'Minimum of a property' },
  { value: 'avg', label: 'Average of a property' },
  { value: 'unique', label: 'Unique values of a property' },
];

export const emptyClause = (): ClauseDraft => ({
  property: 'name',
  operator: 'eq',
  kind: 'text',
  value: '',
});

const isClause = (item: MeterFilterClause | MeterFilter): item is MeterFilterClause =>
  'property' in item;

function clauseDraft(clause: MeterFilterClause): ClauseDraft {
  const kind: ValueKind =
    typeof clause.value === 'number'
      ? 'number'
      : typeof clause.value === 'boolean'
        ? 'boolean'
        : 'text';
  return {
    property: clause.property,
    operator: clause.operator,
    kind,
    value: String(clause.value),
  };
}

export function initialValues(meter?: Meter): MeterFormValues {
  const filter = meter?.filter as MeterFilter | undefined;
  const aggregation = meter?.aggregation;
  return {
    name: meter?.name ?? '',
    filter: {
      conjunction: filter?.conjunction ?? 'and',
      clauses: filter ? filter.clauses.filter(isClause).map(clauseDraft) : [emptyClause()],
      groups: filter ? (filter.clauses.filter((item) => !isClause(item)) as MeterFilter[]) : [],
    },
    aggregation: {
      func: aggregation?.func ?? 'count',
      property: aggregation && 'property' in aggregation ? aggregation.property : '',
    },
  };
}

/** Text that is no number stays NaN: the schema refuses it at the clause's value. */
function clauseValue({ kind, value }: ClauseDraft): string | number | boolean {
  if (kind === 'number') return value.trim() ? Number(value) : Number.NaN;
  if (kind === 'boolean') return value === 'true';
  return value;
}

export function meterBody({ name, filter, aggregation }: MeterFormValues) {
  const { func, property } = aggregation;
  return {
    name,
    filter: {
      conjunction: filter.conjunction,
      clauses: [
        ...filter.clauses.map((clause) => ({
          property: clause.property,
          operator: clause.operator,
          value: clauseValue(clause),
        })),
        ...filter.groups,
      ],
    },
    aggregation: func === 'count' ? { func } : { func, property },
  };
}

/** The API's own schema, run on the body the values make. */
export const meterFormSchema = (creating: boolean) => ({
  safeParse: (values: unknown) =>
    (creating ? meterCreateInput : meterUpdateInput).safeParse(
      meterBody(values as MeterFormValues),
    ),
});
