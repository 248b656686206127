import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Organization, TaxRate } from '../../db/entities/index.ts';
import { findPage, type ListQuery } from '../../db/listing.ts';
import { type SellerTaxRate, taxSettingsOf } from '../../domain/tax.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import type { TaxRateCreateInput, TaxRateUpdateInput, taxRateSortFields } from './schemas.ts';

type TaxRateSortField = (typeof taxRateSortFields)[number];

export interface TaxRateListFilter {
  country: string | undefined;
}

/** A page of the organization's tax rates, with the total count. */
export function listTaxRates(
  em: EntityManager,
  organizationId: string,
  { country, sorting, page }: ListQuery<TaxRateListFilter, TaxRateSortField>,
): Promise<[TaxRate[], number]> {
  return findPage(em, TaxRate, {
    where: [{ organization: organizationId }, country ? { country } : {}],
    sorting,
    sortKeys: { created_at: 'createdAt', country: 'country' },
    page,
  });
}

/** A tax rate of the organization; other organizations' rates are not found. */
export async function getTaxRate(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<TaxRate> {
  const rate = await em.findOne(TaxRate, { id, organization: organizationId });
  if (!rate) throw resourceNotFound('Tax rate not found');
  return rate;
}

/**
 * Creates a rate for a place the organization has none for (the unique constraint answers a
 * concurrent duplicate like one found beforehand).
 */
export async function createTaxRate(
  em: EntityManager,
  organizationId: string,
  input: TaxRateCreateInput,
): Promise<TaxRate> {
  try {
    return await em.transactional(async (tx) => {
      const organization = await tx.findOneOrFail(Organization, organizationId);
      const taken = await tx.count(TaxRate, {
        organization: organizationId,
        country: input.country,
        subdivision: input.subdivision,
      });
      if (taken) throw commerceError('TaxRateAlreadyExists');
      return tx.create(TaxRate, {
        organization,
        country: input.country,
        subdivision: input.subdivision,
        rateBps: input.rate_bps,
        displayName: input.display_name,
        inclusive: input.inclusive ?? taxSettingsOf(organization).pricesIncludeTax,
      });
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw commerceError('TaxRateAlreadyExists');
    }
    throw error;
  }
}

/** Changes a rate's basis points, name or inclusiveness; open checkouts take it at their next change. */
export function updateTaxRate(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: TaxRateUpdateInput,
): Promise<TaxRate> {
  return em.transactional(async (tx) => {
    const rate = await getTaxRate(tx, organizationId, id);
    if (input.rate_bps !== undefined) rate.rateBps = input.rate_bps;
    if (input.display_name !== undefined) rate.displayName = input.display_name;
    if (input.inclusive !== undefined) rate.inclusive = input.inclusive;
    return rate;
  });
}

/** Deletes a rate; orders keep the tax lines they were sold with. */
export function deleteTaxRate(em: EntityManager, organizationId: string, id: string) {
  return em.transactional(async (tx) => {
    const rate = await getTaxRate(tx, organizationId, id);
    await tx.nativeDelete(TaxRate, { id: rate.id });
  });
}

/** The organization's rates as domain/tax.ts reads them. */
export async function sellerTaxRates(
  em: EntityManager,
  organizationId: string,
): Promise<SellerTaxRate[]> {
  const rates = await em.find(TaxRate, { organization: organizationId });
  return rates.map((rate) => ({
    country: rate.country,
    subdivision: rate.subdivision ?? null,
    rateBps: rate.rateBps,
    displayName: rate.displayName,
    inclusive: rate.inclusive,
  }));
}
