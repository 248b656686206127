import { regexes, z } from 'zod';
import type { Customer, UsageEvent } from '../../db/entities/index.ts';
import { metadataInput, metadataLimits } from '../../domain/metadata.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import { dateTimeInput, dateTimeWireSchema, isoDateTime, metadataWireSchema } from '../wire.ts';

/**
 * The most events one ingest request may carry, and the most bytes its body may have: whichever
 * comes first refuses the request whole (422 naming the count, 413 naming the size).
 */
export const maxEventsPerBatch = 10_000;
export const maxIngestBodyBytes = 10 * 1024 * 1024;

/**
 * Metadata numbers are exact decimals to meters, held as numeric(38,12): larger magnitudes are
 * refused per event rather than letting one overflow fail the whole batch.
 */
export const maxMetadataMagnitude = 1e18;

/**
 * The envelope of an ingest request: a list of events, each checked on its own afterwards
 * (`eventCreateInput`). The body is read as it arrives (`eventsOfBody`), which answers with this
 * schema's issues when the envelope is not this shape.
 */
export const eventsIngestInput = z.object({ events: z.array(z.unknown()) });

/**
 * One event of a batch (Polar's `EventCreateCustomer | EventCreateExternalCustomer`): a
 * customer by id or by the seller's external id (the id wins when both are given), an optional
 * time (now by default, never in the future) and `external_id`, which makes a retried event
 * count once.
 */
export const eventCreateInput = z
  .object({
    name: z.string().min(1).max(255),
    timestamp: dateTimeInput.optional(),
    customer_id: z.uuid().optional(),
    external_customer_id: z.string().min(1).max(255).optional(),
    external_id: z.string().min(1).max(255).nullable().optional(),
    metadata: metadataInput
      .refine(
        (metadata) =>
          Object.values(metadata).every(
            (value) => typeof value !== 'number' || Math.abs(value) < maxMetadataMagnitude,
          ),
        { message: `Metadata numbers must be smaller than ${maxMetadataMagnitude} in magnitude.` },
      )
      .optional(),
    organization_id: z.uuid().nullable().optional(),
  })
  .refine((event) => event.customer_id !== undefined || event.external_customer_id !== undefined, {
    message: 'Either customer_id or external_customer_id is required.',
    path: ['customer_id'],
  });
export type EventCreateInput = z.infer<typeof eventCreateInput>;

const eventFields = new Set([
  'name',
  'timestamp',
  'customer_id',
  'external_customer_id',
  'external_id',
  'metadata',
  'organization_id',
]);
// The very patterns the schema's `z.iso.datetime({ offset: true })` and `z.uuid()` test.
const dateTimePattern = regexes.datetime({ offset: true, precision: null, local: false });
const uuidPattern = regexes.uuid();
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= max;

/** Plain metadata the schema accepts as is (UTF-16 length bounds its code points). */
function isPlainMetadata(metadata: unknown): metadata is Record<string, string | number | boolean> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return false;
  let keys = 0;
  for (const key in metadata) {
    if (++keys > metadataLimits.maxKeys || !isText(key, metadataLimits.maxKeyLength)) return false;
    if (key === '__proto__') return false;
    const value = (metadata as Record<string, unknown>)[key];
    if (typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (Number.isFinite(value) && Math.abs(value) < maxMetadataMagnitude) continue;
      return false;
    }
    if (!isText(value, metadataLimits.maxStringLength)) return false;
  }
  return true;
}

/**
 * `eventCreateInput.safeParse`, answering the common, plainly valid event without running the
 * schema (a batch of 1,000 through zod costs tens of milliseconds of the API's event loop): the
 * checks below accept a subset of what the schema accepts and build the same output; anything
 * else goes through the schema, which also words the errors.
 */
export function parseEventCreateInput(event: unknown) {
  if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
    const input = event as Record<string, unknown>;
    let plain = isText(input.name, 255);
    for (const key in input) if (!eventFields.has(key)) plain = false;
    const { timestamp, customer_id, external_customer_id, external_id, metadata } = input;
    plain &&=
      (timestamp === undefined ||
        (typeof timestamp === 'string' && dateTimePattern.test(timestamp))) &&
      (customer_id === undefined ||
        (typeof customer_id === 'string' && uuidPattern.test(customer_id))) &&
      (external_customer_id === undefined || isText(external_customer_id, 255)) &&
      (customer_id !== undefined || external_customer_id !== undefined) &&
      (external_id == null || isText(external_id, 255)) &&
      (metadata === undefined || isPlainMetadata(metadata)) &&
      input.organization_id == null;
    if (plain) {
      const data = { ...input } as EventCreateInput & Record<string, unknown>;
      if (timestamp !== undefined) data.timestamp = new Date(timestamp as string);
      if (metadata !== undefined) data.metadata = { ...(metadata as Record<string, never>) };
      return { success: true as const, data: data as EventCreateInput };
    }
  }
  return eventCreateInput.safeParse(event);
}

export const eventSortFields = ['timestamp'] as const;
export const eventNameSortFields = ['name', 'occurrences', 'first_seen', 'last_seen'] as const;
export const eventSources = ['user', 'system'] as const;

export const eventListQuery = z
  .object({
    filter: z.string().optional(),
    start_timestamp: dateTimeInput.optional(),
    end_timestamp: dateTimeInput.optional(),
    meter_id: z.uuid().optional(),
  })
  .loose();

export const eventNameListQuery = z.object({ query: z.string().optional() }).loose();

const eventCommonWire = {
  id: z.uuid(),
  timestamp: dateTimeWireSchema,
  organization_id: z.uuid(),
  customer_id: z.uuid().nullable(),
  customer: customerWireSchema.nullable(),
  external_customer_id: z.string().nullable(),
};

/** The events Tollgate records itself, each name with its metadata (Polar's `SystemEvent`). */
const systemEventWireSchema = z.discriminatedUnion('name', [
  z
    .object({
      ...eventCommonWire,
      source: z.literal('system'),
      name: z.literal('meter.credited'),
      metadata: z.object({ meter_id: z.uuid(), units: z.int(), rollover: z.boolean() }),
    })
    .meta({ id: 'MeterCreditEvent' }),
  z
    .object({
      ...eventCommonWire,
      source: z.literal('system'),
      name: z.literal('meter.reset'),
      metadata: z.object({ meter_id: z.uuid() }),
    })
    .meta({ id: 'MeterResetEvent' }),
]);

/** Polar's `Event`: a `UserEvent` as ingested, or a `SystemEvent` told apart by its name. */
export const eventWireSchema = z
  .discriminatedUnion('source', [
    z
      .object({
        ...eventCommonWire,
        source: z.literal('user'),
        name: z.string(),
        metadata: metadataWireSchema,
      })
      .meta({ id: 'UserEvent' }),
    systemEventWireSchema,
  ])
  .meta({ id: 'Event' });

/** Polar's `EventName`. */
export const eventNameWireSchema = z
  .object({
    name: z.string(),
    source: z.enum(eventSources),
    occurrences: z.int(),
    first_seen: dateTimeWireSchema,
    last_seen: dateTimeWireSchema,
  })
  .meta({ id: 'EventName' });

/** Polar's `EventsIngestResponse`: how many events were stored, and how many were known already. */
export const eventsIngestWireSchema = z
  .object({ inserted: z.int(), duplicates: z.int() })
  .meta({ id: 'EventsIngestResponse' });

/** An event as /v1 answers it (Polar's `UserEvent` or `SystemEvent`), its customer embedded. */
export function eventWire(
  event: UsageEvent,
  customer: Customer | null,
): z.input<typeof eventWireSchema> {
  return {
    id: event.id,
    timestamp: isoDateTime(event.timestamp),
    organization_id: event.organization.id,
    customer_id: customer?.id ?? null,
    customer: customer ? customerWire(customer) : null,
    external_customer_id: event.externalCustomerId ?? null,
    name: event.name,
    source: event.source,
    metadata: event.metadata,
    // Ingest writes user events, customer-meters/service.ts the system ones, each in its shape.
  } as z.input<typeof eventWireSchema>;
}

/** A row of the event names list. */
export interface EventNameRow {
  name: string;
  source: 'user' | 'system';
  occurrences: number;
  first_seen: string;
  last_seen: string;
}

export function eventNameWire(row: EventNameRow): z.input<typeof eventNameWireSchema> {
  return {
    name: row.name,
    source: row.source,
    occurrences: Number(row.occurrences),
    first_seen: isoDateTime(new Date(row.first_seen)),
    last_seen: isoDateTime(new Date(row.last_seen)),
  };
}
