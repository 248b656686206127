import { z } from 'zod';
import type { TaxRate } from '../../db/entities/index.ts';
import { addressCountries, subdivisions } from '../../domain/addresses.ts';
import { maxRateBps, type TaxLine } from '../../domain/tax.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

export const taxRateSortFields = ['created_at', 'country'] as const;

const countryInput = z
  .string()
  .trim()
  .toUpperCase()
  .refine((country) => addressCountries.has(country), { message: 'Invalid country.' });
const rateInput = z.int().min(0).max(maxRateBps);
const displayNameInput = z.string().trim().min(1).max(255);

/**
 * Tollgate's own (issue 22): a seller-defined rate. `subdivision` is a US state or Canadian
 * province (`CA`, `QC`, also written `US-CA`), stored without the country; `inclusive` left out
 * takes the organization's `tax_settings.prices_include_tax`.
 */
export const taxRateCreateInput = z
  .object({
    organization_id: z.uuid().nullable().optional(),
    country: countryInput,
    subdivision: z.string().trim().toUpperCase().min(1).nullable().optional(),
    rate_bps: rateInput,
    display_name: displayNameInput,
    inclusive: z.boolean().nullable().optional(),
  })
  .transform((input, context) => {
    const subdivision = input.subdivision?.replace(`${input.country}-`, '') ?? null;
    const known = subdivisions[input.country];
    if (subdivision !== null && !known?.has(`${input.country}-${subdivision}`)) {
      context.addIssue({
        code: 'custom',
        path: ['subdivision'],
        message: 'Subdivisions are US states and Canadian provinces of the rate’s country.',
      });
      return z.NEVER;
    }
    return { ...input, subdivision };
  });
export type TaxRateCreateInput = z.infer<typeof taxRateCreateInput>;

/** The rate, its name and whether prices include it; the place stays (delete and create). */
export const taxRateUpdateInput = z.object({
  rate_bps: rateInput.optional(),
  display_name: displayNameInput.optional(),
  inclusive: z.boolean().optional(),
});
export type TaxRateUpdateInput = z.infer<typeof taxRateUpdateInput>;

export const taxRateListQuery = z.object({ country: countryInput.optional() }).loose();

export const taxRateWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    organization_id: z.uuid(),
    country: z.string(),
    subdivision: z.string().nullable(),
    rate_bps: z.int(),
    display_name: z.string(),
    inclusive: z.boolean(),
  })
  .meta({ id: 'TaxRate' });

export function taxRateWire(rate: TaxRate): z.input<typeof taxRateWireSchema> {
  return {
    id: rate.id,
    created_at: isoDateTime(rate.createdAt),
    modified_at: isoDateTimeOrNull(rate.modifiedAt),
    organization_id: rate.organization.id,
    country: rate.country,
    subdivision: rate.subdivision ?? null,
    rate_bps: rate.rateBps,
    display_name: rate.displayName,
    inclusive: rate.inclusive,
  };
}

/**
 * Tollgate's own (issue 22): one tax line of a checkout or an order (domain/tax.ts's `TaxLine`): where,
 * which rate, the amount it applies to and its tax; `reverse_charge` for EU B2B across borders.
 */
export const taxLineWireSchema = z
  .object({
    jurisdiction: z.string(),
    display_name: z.string(),
    rate_bps: z.int(),
    taxable_amount: z.int(),
    tax_amount: z.int(),
    inclusive: z.boolean(),
    reverse_charge: z.boolean(),
  })
  .meta({ id: 'TaxLine' });

export const taxLineWire = (line: TaxLine): z.input<typeof taxLineWireSchema> => ({
  jurisdiction: line.jurisdiction,
  display_name: line.displayName,
  rate_bps: line.rateBps,
  taxable_amount: line.taxableAmount,
  tax_amount: line.taxAmount,
  inclusive: line.inclusive,
  reverse_charge: line.reverseCharge,
});
