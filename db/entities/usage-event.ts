import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Meter } from './meter.ts';
import { Organization } from './organization.ts';

export const eventSources = ['user', 'system'] as const;
export type EventSource = (typeof eventSources)[number];

/**
 * A usage event a seller ingested (source `user`) or Tollgate recorded (`system`, e.g.
 * `meter.credited`). Events naming an external customer id that has no customer yet keep
 * `customer` null until that customer appears. `externalId` makes a retried ingest count once.
 */
const UsageEventSchema = defineEntity({
  name: 'UsageEvent',
  tableName: 'events',
  uniques: [{ properties: ['organization', 'externalId'] }],
  indexes: [
    { properties: ['organization', 'timestamp'] },
    { properties: ['customer', 'timestamp'] },
    // Events waiting for their customer, found by external id when it appears.
    {
      name: 'events_pending_customer_index',
      expression:
        'create index "events_pending_customer_index" on "events" ("organization_id", "external_customer_id") where "customer_id" is null',
    },
  ],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    source: p.enum(eventSources).default('user'),
    timestamp: p.datetime(),
    customer: () => p.manyToOne(Customer).nullable().deleteRule('set null'),
    externalCustomerId: p.string().nullable(),
    externalId: p.string().nullable(),
    metadata: metadataColumn(),
    ingestedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class UsageEvent extends UsageEventSchema.class {}
UsageEventSchema.setClass(UsageEvent);

/**
 * One meter's usage by one customer in one hour, kept up to date at ingestion so that
 * quantities over millions of events read a few hundred rows. `avg` is `sumValue / eventCount`.
 */
const MeterUsageHourSchema = defineEntity({
  name: 'MeterUsageHour',
  tableName: 'meter_usage_hours',
  uniques: [{ properties: ['meter', 'customer', 'hour'] }],
  properties: {
    id: idColumn(),
    meter: () => p.manyToOne(Meter).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    hour: p.datetime(),
    eventCount: p.bigint('number').default(0),
    sumValue: p.decimal('string').precision(38).scale(12).default('0'),
    minValue: p.decimal('string').precision(38).scale(12).nullable(),
    maxValue: p.decimal('string').precision(38).scale(12).nullable(),
  },
});

export class MeterUsageHour extends MeterUsageHourSchema.class {}
MeterUsageHourSchema.setClass(MeterUsageHour);

/**
 * A closed, billed period of one customer's usage on one meter. Events arriving later for the
 * period are not added to what was billed: they are counted in `lateUnits` and reported.
 */
const MeterBilledPeriodSchema = defineEntity({
  name: 'MeterBilledPeriod',
  tableName: 'meter_billed_periods',
  uniques: [{ properties: ['meter', 'customer', 'periodStart'] }],
  properties: {
    id: idColumn(),
    meter: () => p.manyToOne(Meter).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    units: p.decimal('string').precision(38).scale(12),
    /** The subscription whose renewal billed the period (its table's key; no constraint). */
    subscriptionId: p.uuid().nullable(),
    billedAt: p.datetime().onCreate(() => new Date()),
    lateUnits: p.decimal('string').precision(38).scale(12).default('0'),
    lateEventCount: p.integer().default(0),
  },
});

export class MeterBilledPeriod extends MeterBilledPeriodSchema.class {}
MeterBilledPeriodSchema.setClass(MeterBilledPeriod);
