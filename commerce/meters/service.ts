import type { EntityManager } from '@mikro-orm/postgresql';
import { announceChange } from '../../db/change-notifications.ts';
import { Meter } from '../../db/entities/index.ts';
import { findPage, isSet, type ListQuery, textSearch } from '../../db/listing.ts';
import { metadataFilterConditions } from '../../db/sql.ts';
import { rebuildCustomerMeters } from '../customer-meters/service.ts';
import { resourceNotFound } from '../errors.ts';
import { rebuildMeterRollups } from './rollups.ts';
import type { MeterCreateInput, MeterUpdateInput, meterSortFields } from './schemas.ts';

type MeterSortField = (typeof meterSortFields)[number];

export interface MeterListFilter {
  query?: string;
  isArchived?: boolean;
  /** `?metadata[key]=value`: each key must match one of its values (compared as text). */
  metadata: Record<string, string[]>;
}

/** One page of the organization's meters, with the total count of matching ones. */
export function listMeters(
  em: EntityManager,
  organizationId: string,
  { query, isArchived, metadata, sorting, page }: ListQuery<MeterListFilter, MeterSortField>,
): Promise<[Meter[], number]> {
  return findPage(em, Meter, {
    where: [
      { organization: organizationId },
      textSearch(['name'], query),
      isSet('archivedAt', isArchived),
      ...metadataFilterConditions(metadata),
    ],
    sorting,
    sortKeys: { created_at: 'createdAt', name: 'name' },
    page,
  });
}

/** The organization's meter; another organization's id is not found, like an unknown one. */
export async function getMeter(em: EntityManager, organizationId: string, id: string) {
  const meter = await em.findOne(Meter, { id, organization: organizationId });
  if (!meter) throw resourceNotFound('Meter not found');
  return meter;
}

export function createMeter(
  em: EntityManager,
  organizationId: string,
  input: MeterCreateInput,
): Promise<Meter> {
  return em.transactional(async (tx) => {
    const meter = tx.create(Meter, {
      organization: organizationId,
      name: input.name,
      filter: input.filter,
      aggregation: input.aggregation,
      metadata: input.metadata ?? {},
    });
    await tx.flush();
    // Events ingested before the meter existed count too.
    await rebuildMeterRollups(tx, meter);
    await rebuildCustomerMeters(tx, organizationId, meter);
    return meter;
  });
}

/**
 * Applies a seller's update; absent or null fields keep their value. `is_archived` stamps or
 * clears `archived_at`. Polar refuses a new filter or aggregation once a metered price has billed
 * events; Tollgate always allows the change (it applies to quantities computed afterwards, the
 * hourly rollups are rebuilt for it; billed periods keep what they billed).
 */
export function updateMeter(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: MeterUpdateInput,
): Promise<Meter> {
  return em.transactional(async (tx) => {
    const meter = await getMeter(tx, organizationId, id);
    if (input.name) meter.name = input.name;
    if (input.filter) meter.filter = input.filter;
    if (input.aggregation) meter.aggregation = input.aggregation;
    if (input.filter || input.aggregation) {
      await rebuildMeterRollups(tx, meter);
      await rebuildCustomerMeters(tx, organizationId, meter);
    }
    if (input.metadata) meter.metadata = input.metadata;
    if (input.is_archived != null && input.is_archived !== (meter.archivedAt != null)) {
      meter.archivedAt = input.is_archived ? new Date() : null;
    }
    // Stamped now so the answer carries it (the flush's own stamp comes after serialization).
    meter.modifiedAt = new Date();
    // Metered prices embed their meter's name.
    await announceChange(tx, 'catalog', organizationId);
    return meter;
  });
}
