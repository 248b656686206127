import type { EntityManager } from '@mikro-orm/core';
import { invalidField } from '../../core/errors.ts';
import { announceChange } from '../../db/change-notifications.ts';
import {
  Benefit,
  BenefitGrant,
  Meter,
  ProductBenefit,
  StoredFile,
} from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, textSearch } from '../../db/listing.ts';
import { metadataFilterConditions } from '../../db/sql.ts';
import { discordGuildIdOf } from '../../domain/benefit-properties.ts';
import type { BenefitType } from '../../domain/benefit-types.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import { appendEvent } from '../outbox.ts';
import {
  type BenefitCreateInput,
  type BenefitPropertiesInput,
  type BenefitUpdateInput,
  type benefitGrantSortFields,
  type benefitSortFields,
  benefitWire,
} from './schemas.ts';

type BenefitSortField = (typeof benefitSortFields)[number];
type BenefitGrantSortField = (typeof benefitGrantSortFields)[number];

export interface BenefitListFilter {
  types: BenefitType[];
  query: string | null | undefined;
  metadata: Record<string, string[]>;
}

/** A page of the organization's live benefits, with the total count. */
export function listBenefits(
  em: EntityManager,
  organizationId: string,
  { types, query, metadata, sorting, page }: ListQuery<BenefitListFilter, BenefitSortField>,
): Promise<[Benefit[], number]> {
  return findPage(em, Benefit, {
    where: [
      { organization: organizationId, deletedAt: null },
      inList('type', types),
      textSearch(['description'], query),
      ...metadataFilterConditions(metadata),
    ],
    sorting,
    sortKeys: { created_at: 'createdAt', description: 'description', type: 'type' },
    page,
  });
}

/** A live benefit of the organization; deleted ones and other organizations' are not found. */
export async function getBenefit(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Benefit> {
  const benefit = await em.findOne(Benefit, { id, organization: organizationId, deletedAt: null });
  if (!benefit) throw resourceNotFound('Benefit not found');
  return benefit;
}

/**
 * The properties stored for a benefit, checked against what they refer to: the Discord guild
 * behind the token, the organization's uploaded downloadable files, its meter. A refused value
 * answers 422 at its place under `body.properties`.
 */
async function storedProperties(
  em: EntityManager,
  organizationId: string,
  input: BenefitPropertiesInput,
  guildTokenSecret: string,
): Promise<Record<string, unknown>> {
  const at = (...path: (string | number)[]) => ['body', 'properties', ...path];
  switch (input.type) {
    case 'custom':
      return { note: input.properties.note ?? null };
    case 'discord': {
      const { guild_token, role_id, kick_member } = input.properties;
      const guildId = discordGuildIdOf(guildTokenSecret, organizationId, guild_token);
      if (!guildId) throw invalidField(at('guild_token'), 'Invalid guild token.');
      return { guild_id: guildId, role_id, kick_member, guild_token };
    }
    case 'github_repository':
      return { ...input.properties };
    case 'downloadables': {
      const { files, archived = {} } = input.properties;
      const usable = await em.find(
        StoredFile,
        {
          id: { $in: files },
          organization: organizationId,
          service: 'downloadable',
          isUploaded: true,
          deletedAt: null,
        },
        { fields: ['id'] },
      );
      const usableIds = new Set(usable.map((file) => file.id));
      const missing = files.findIndex((id) => !usableIds.has(id));
      if (missing >= 0) {
        throw invalidField(at('files', missing), 'File not found or not uploaded.');
      }
      return { files, archived };
    }
    case 'license_keys': {
      const { prefix, expires, activations, limit_usage } = input.properties;
      return {
        prefix: prefix ?? null,
        expires: expires ?? null,
        activations: activations ?? null,
        limit_usage: limit_usage ?? null,
      };
    }
    case 'meter_credit': {
      const { units, rollover, meter_id } = input.properties;
      const meter = await em.count(Meter, { id: meter_id, organization: organizationId });
      if (meter === 0) throw invalidField(at('meter_id'), 'Meter not found.');
      return { units, rollover, meter_id };
    }
  }
}

/** Creates a benefit and records `benefit.created`. */
export function createBenefit(
  em: EntityManager,
  organizationId: string,
  input: BenefitCreateInput,
  guildTokenSecret: string,
): Promise<Benefit> {
  return em.transactional(async (tx) => {
    const properties = await storedProperties(tx, organizationId, input, guildTokenSecret);
    const benefit = tx.create(Benefit, {
      organization: organizationId,
      type: input.type,
      description: input.description,
      properties,
      metadata: input.metadata ?? {},
    });
    // The event carries the row as stored, id and creation time included.
    await tx.flush();
    appendEvent(tx, organizationId, 'benefit.created', benefitWire(benefit));
    return benefit;
  });
}

/**
 * Changes a benefit's description, metadata or properties (replaced whole). The body names the
 * benefit's type, which cannot change. Records `benefit.updated`.
 */
export function updateBenefit(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: BenefitUpdateInput,
  guildTokenSecret: string,
): Promise<Benefit> {
  return em.transactional(async (tx) => {
    const benefit = await getBenefit(tx, organizationId, id);
    if (input.type !== benefit.type) {
      throw invalidField(['body', 'type'], `The benefit is of type ${benefit.type}.`);
    }
    if (input.description) benefit.description = input.description;
    if (input.metadata) benefit.metadata = input.metadata;
    if (input.properties) {
      benefit.properties = await storedProperties(
        tx,
        organizationId,
        input as BenefitPropertiesInput,
        guildTokenSecret,
      );
    }
    benefit.modifiedAt = new Date();
    appendEvent(tx, organizationId, 'benefit.updated', benefitWire(benefit));
    // Products embed their benefits.
    await announceChange(tx, 'catalog', organizationId);
    return benefit;
  });
}

/**
 * Deletes a benefit softly: it leaves every product at once; grants keep pointing at it and are
 * revoked afterwards through their workflows (see revokeGrantsOfDeleted). Benefits made
 * non-deletable refuse with NotPermitted. Records `benefit.updated`.
 */
export function deleteBenefit(em: EntityManager, organizationId: string, id: string) {
  return em.transactional(async (tx) => {
    const benefit = await getBenefit(tx, organizationId, id);
    if (!benefit.deletable) throw notPermitted('This benefit cannot be deleted.');
    const now = new Date();
    benefit.deletedAt = now;
    benefit.modifiedAt = now;
    await tx.nativeDelete(ProductBenefit, { benefit: benefit.id });
    appendEvent(tx, organizationId, 'benefit.updated', benefitWire(benefit));
    await announceChange(tx, 'catalog', organizationId);
  });
}

export interface BenefitGrantFilter {
  benefitId?: string;
  customerIds: string[];
  isGranted: boolean | undefined;
}

/** A page of the grants of the organization's benefits, customer and benefit loaded. */
export function listBenefitGrants(
  em: EntityManager,
  organizationId: string,
  {
    benefitId,
    customerIds,
    isGranted,
    sorting,
    page,
  }: ListQuery<BenefitGrantFilter, BenefitGrantSortField>,
): Promise<[BenefitGrant[], number]> {
  const granted = { grantedAt: { $ne: null }, revokedAt: null };
  return findPage(em, BenefitGrant, {
    where: [
      { benefit: { organization: organizationId, ...(benefitId && { id: benefitId }) } },
      inList('customer', customerIds),
      isGranted === true && granted,
      isGranted === false && { $not: granted },
    ],
    sorting,
    sortKeys: { created_at: 'createdAt', granted_at: 'grantedAt', revoked_at: 'revokedAt' },
    page,
    populate: ['customer', 'benefit'],
  });
}
