import { defineEntity, p } from '@mikro-orm/core';
import type { MeterAggregation, MeterFilter } from '../../domain/meter-filter.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Organization } from './organization.ts';

/** A usage meter: which events count (filter) and how they add up (aggregation). */
const MeterSchema = defineEntity({
  name: 'Meter',
  tableName: 'meters',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    name: p.string(),
    filter: p.json<MeterFilter>(),
    aggregation: p.json<MeterAggregation>(),
    metadata: metadataColumn(),
    archivedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Meter extends MeterSchema.class {}
MeterSchema.setClass(Meter);

/**
 * One customer's standing on one meter. Consumed units may be fractional (exact numeric, read as
 * a decimal string); credited units are whole.
 */
const CustomerMeterSchema = defineEntity({
  name: 'CustomerMeter',
  tableName: 'customer_meters',
  uniques: [{ properties: ['customer', 'meter'] }],
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    meter: () => p.manyToOne(Meter).deleteRule('cascade').index(),
    consumedUnits: p.decimal('string').precision(38).scale(12).default('0'),
    creditedUnits: p.integer().default(0),
    /**
     * When the meter was last reset (a new period of a meter credit): consumed units count the
     * events from then on. Null: since the first event.
     */
    resetAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class CustomerMeter extends CustomerMeterSchema.class {}
CustomerMeterSchema.setClass(CustomerMeter);
