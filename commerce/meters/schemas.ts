import { z } from 'zod';
import type { Meter } from '../../db/entities/index.ts';
import { metadataInput } from '../../domain/metadata.ts';
import {
  aggregationFunctions,
  filterConjunctions,
  filterOperators,
  type MeterAggregation,
  type MeterFilter,
  type MeterFilterClause,
} from '../../domain/meter-filter.ts';
import {
  dateTimeInput,
  dateTimeWireSchema,
  isoDateTime,
  isoDateTimeOrNull,
  metadataWireSchema,
} from '../wire.ts';
import { type MeterQuantities, timeIntervals } from './quantities.ts';

// Clause values are stored in PostgreSQL-friendly ranges: text up to 1000 characters, int4.
const int32 = { min: -2_147_483_648, max: 2_147_483_647 };

const filterClauseInput: z.ZodType<MeterFilterClause> = z.object({
  property: z.string().min(1),
  operator: z.enum(filterOperators),
  value: z.union(
    [z.string().max(1000), z.number().int().min(int32.min).max(int32.max), z.boolean()],
    {
      error: 'Expected a string of at most 1000 characters, a 32-bit integer or a boolean.',
    },
  ),
});

const isNestedFilter = (value: unknown) =>
  typeof value === 'object' && value !== null && ('clauses' in value || 'conjunction' in value);

/**
 * A clause or a nested filter, told apart by shape (`clauses`/`conjunction` keys) so that errors
 * point at the faulty field (`filter.clauses.0.operator`) rather than at the whole union.
 */
const filterItemInput = z.unknown().transform((value, ctx): MeterFilterClause | MeterFilter => {
  const parsed = (isNestedFilter(value) ? meterFilterInput : filterClauseInput).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
  return z.NEVER;
});

/** A meter filter as sellers send it, validated at every level of nesting. */
export const meterFilterInput: z.ZodType<MeterFilter> = z.object({
  conjunction: z.enum(filterConjunctions),
  clauses: z.array(filterItemInput),
});

const propertyFunctions = aggregationFunctions.filter((func) => func !== 'count') as [
  Exclude<MeterAggregation['func'], 'count'>,
  ...Exclude<MeterAggregation['func'], 'count'>[],
];

/** `count` takes no property; every other function aggregates one. */
export const meterAggregationInput: z.ZodType<MeterAggregation> = z.discriminatedUnion('func', [
  z
    .object({
      func: z.literal('count'),
      property: z.never({ error: 'A count aggregation takes no property.' }).optional(),
    })
    .transform(() => ({ func: 'count' as const })),
  z.object({ func: z.enum(propertyFunctions), property: z.string().min(1) }),
]);

export const meterCreateInput = z.object({
  name: z.string().trim().min(3).max(255),
  filter: meterFilterInput,
  aggregation: meterAggregationInput,
  metadata: metadataInput.optional(),
  organization_id: z.uuid().nullable().optional(),
});
export type MeterCreateInput = z.infer<typeof meterCreateInput>;

export const meterUpdateInput = z.object({
  name: z.string().trim().min(3).max(255).nullable().optional(),
  filter: meterFilterInput.nullable().optional(),
  aggregation: meterAggregationInput.nullable().optional(),
  is_archived: z.boolean().nullable().optional(),
  metadata: metadataInput.optional(),
});
export type MeterUpdateInput = z.infer<typeof meterUpdateInput>;

export const meterListQuery = z.object({ query: z.string().optional() }).loose();
export const meterSortFields = ['created_at', 'name'] as const;

const filterClauseWireSchema = z
  .object({
    property: z.string(),
    operator: z.enum(filterOperators),
    value: z.union([z.string(), z.int(), z.boolean()]),
  })
  .meta({ id: 'FilterClause' });

/** Polar's `Filter`: clauses, each a clause or a nested filter, joined by one conjunction. */
export const meterFilterWireSchema: z.ZodType<MeterFilter> = z
  .object({
    conjunction: z.enum(filterConjunctions),
    get clauses() {
      return z.array(z.union([filterClauseWireSchema, meterFilterWireSchema]));
    },
  })
  .meta({ id: 'Filter' });

/** Polar's `Meter`. */
export const meterWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    metadata: metadataWireSchema,
    name: z.string(),
    filter: meterFilterWireSchema,
    aggregation: z.discriminatedUnion('func', [
      z.object({ func: z.literal('count') }),
      z.object({ func: z.enum(propertyFunctions), property: z.string() }),
    ]),
    organization_id: z.uuid(),
    archived_at: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'Meter' });

/** Polar's `MeterQuantities`. */
export const meterQuantitiesWireSchema = z
  .object({
    quantities: z.array(z.object({ timestamp: dateTimeWireSchema, quantity: z.number() })),
    total: z.number(),
  })
  .meta({ id: 'MeterQuantities' });

/** A usage meter as /v1 answers it (Polar's `Meter`); filter and aggregation are stored in wire form. */
export function meterWire(meter: Meter): z.input<typeof meterWireSchema> {
  return {
    id: meter.id,
    created_at: isoDateTime(meter.createdAt),
    modified_at: isoDateTimeOrNull(meter.modifiedAt),
    metadata: meter.metadata,
    name: meter.name,
    filter: meter.filter,
    aggregation: meter.aggregation,
    organization_id: meter.organization.id,
    archived_at: isoDateTimeOrNull(meter.archivedAt),
  };
}
export type MeterWire = ReturnType<typeof meterWire>;

/** GET /v1/meters/{id}/quantities: the period and interval are required. */
export const meterQuantitiesQuery = z
  .object({
    start_timestamp: dateTimeInput,
    end_timestamp: dateTimeInput,
    interval: z.enum(timeIntervals),
    customer_aggregation_function: z.enum(aggregationFunctions).optional(),
  })
  .loose();

/** Polar's `MeterQuantities`: quantities are JSON numbers (computed exactly, then rendered). */
export function meterQuantitiesWire({
  quantities,
  total,
}: MeterQuantities): z.input<typeof meterQuantitiesWireSchema> {
  return {
    quantities: quantities.map(({ timestamp, quantity }) => ({
      timestamp: isoDateTime(timestamp),
      quantity: Number(quantity),
    })),
    total: Number(total),
  };
}
