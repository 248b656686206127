import type { EntityManager } from '@mikro-orm/postgresql';
import { type Customer, Meter } from '../../db/entities/index.ts';
import type { ListQuery } from '../../db/listing.ts';
import {
  type CustomerMeterRow,
  type customerCustomerMeterSortFields,
  customerCustomerMeterWire,
} from './schemas.ts';
import { getCustomerMeter, listCustomerMeters } from './service.ts';

type CustomerCustomerMeterSortField = (typeof customerCustomerMeterSortFields)[number];

export interface CustomerCustomerMeterFilter {
  meterIds: string[];
  /** Searched in the meter's name. */
  query?: string | undefined;
}

/** A page of the customer's own meters, and how many match. */
export function listCustomerCustomerMeters(
  em: EntityManager,
  customer: Customer,
  {
    meterIds,
    query,
    sorting,
    page,
  }: ListQuery<CustomerCustomerMeterFilter, CustomerCustomerMeterSortField>,
): Promise<[CustomerMeterRow[], number]> {
  return listCustomerMeters(em, customer.organization.id, {
    customerIds: [customer.id],
    externalCustomerIds: [],
    meterIds,
    meterName: query,
    sorting,
    page,
  });
}

/** One of the customer's own meters; another customer's is not found. */
export function getCustomerCustomerMeter(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<CustomerMeterRow> {
  return getCustomerMeter(em, customer.organization.id, id, customer.id);
}

/** Customer meters as their customer sees them, each meter loaded once. */
export async function serializeCustomerCustomerMeters(em: EntityManager, rows: CustomerMeterRow[]) {
  const meterIds = [...new Set(rows.map((row) => row.meter_id))];
  const meters = meterIds.length ? await em.find(Meter, { id: { $in: meterIds } }) : [];
  const meterOf = new Map(meters.map((meter) => [meter.id, meter]));
  return rows.flatMap((row) => {
    const meter = meterOf.get(row.meter_id);
    return meter ? [customerCustomerMeterWire(row, meter)] : [];
  });
}
