import { z } from 'zod';
import type { Customer, Meter } from '../../db/entities/index.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import { meterWire, meterWireSchema } from '../meters/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

export const customerMeterSortFields = [
  'created_at',
  'modified_at',
  'customer_id',
  'customer_name',
  'meter_id',
  'meter_name',
  'consumed_units',
  'credited_units',
  'balance',
] as const;
export type CustomerMeterSortField = (typeof customerMeterSortFields)[number];

/** A customer meter as read for /v1: decimals as exact text. */
export interface CustomerMeterRow {
  id: string;
  created_at: string;
  modified_at: string | null;
  customer_id: string;
  meter_id: string;
  consumed_units: string;
  credited_units: number;
  balance: string;
}

const standingWireShape = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  customer_id: z.uuid(),
  meter_id: z.uuid(),
  consumed_units: z.number(),
  credited_units: z.int(),
  balance: z.number(),
};

/** Polar's `CustomerMeter`. */
export const customerMeterWireSchema = z
  .object({ ...standingWireShape, customer: customerWireSchema, meter: meterWireSchema })
  .meta({ id: 'CustomerMeter' });

/** Polar's `CustomerCustomerMeter`: the meter named only. */
export const customerCustomerMeterWireSchema = z
  .object({
    ...standingWireShape,
    meter: z.object({
      id: z.uuid(),
      created_at: dateTimeWireSchema,
      modified_at: dateTimeWireSchema.nullable(),
      name: z.string(),
    }),
  })
  .meta({ id: 'CustomerCustomerMeter' });

/** A customer's standing on a meter, as every wire of it holds it: units as JSON numbers. */
function standingWire(row: CustomerMeterRow) {
  return {
    id: row.id,
    created_at: isoDateTime(new Date(row.created_at)),
    modified_at: isoDateTimeOrNull(row.modified_at ? new Date(row.modified_at) : null),
    customer_id: row.customer_id,
    meter_id: row.meter_id,
    consumed_units: Number(row.consumed_units),
    credited_units: row.credited_units,
    balance: Number(row.balance),
  };
}

/**
 * A customer's standing on a meter as /v1 answers it (Polar's `CustomerMeter`): units are JSON
 * numbers on the wire, exact decimals in the database.
 */
export function customerMeterWire(
  row: CustomerMeterRow,
  customer: Customer,
  meter: Meter,
): z.input<typeof customerMeterWireSchema> {
  return {
    ...standingWire(row),
    customer: customerWire(customer),
    meter: meterWire(meter),
  };
}

export const customerCustomerMeterSortFields = [
  'created_at',
  'modified_at',
  'meter_id',
  'meter_name',
] as const;

/**
 * A customer's standing on a meter as the customer sees it (Polar's `CustomerCustomerMeter`):
 * the meter named only, never its filter or aggregation.
 */
export function customerCustomerMeterWire(
  row: CustomerMeterRow,
  meter: Meter,
): z.input<typeof customerCustomerMeterWireSchema> {
  return {
    ...standingWire(row),
    meter: {
      id: meter.id,
      created_at: isoDateTime(meter.createdAt),
      modified_at: isoDateTimeOrNull(meter.modifiedAt),
      name: meter.name,
    },
  };
}
