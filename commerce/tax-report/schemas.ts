import { z } from 'zod';
import { invalidField } from '../../core/errors.ts';

/**
 * GET /v1/tax-report's query (Tollgate's own, issue 22): a range of UTC days, both included and
 * both required, optionally one currency, answered as JSON or as a CSV file.
 */
export const taxReportQuery = z
  .object({
    start_date: z.iso.date(),
    end_date: z.iso.date(),
    currency: z
      .string()
      .regex(/^[a-zA-Z]{3}$/, 'A currency is its three-letter ISO 4217 code.')
      .transform((code) => code.toLowerCase())
      .optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .loose();
export type TaxReportQuery = z.infer<typeof taxReportQuery>;

/** Refuses a reversed range (422 at `end_date`), as the orders export does. */
export function checkTaxReportRange({ start_date, end_date }: TaxReportQuery): void {
  if (end_date < start_date) {
    throw invalidField(['query', 'end_date'], 'End date must be on or after the start date.');
  }
}

/** One row of the report: what one jurisdiction taxed in one month and currency. */
export interface TaxReportRow {
  /** `2026-11`: the UTC month of the sales, and of the refunds given back in it. */
  period: string;
  country: string;
  subdivision: string | null;
  currency: string;
  /** EU B2B sales the buyer accounts the VAT for: their own rows, with 0 tax. */
  reverseCharge: boolean;
  /** Sales less refunds, integer minor units. */
  taxableAmount: number;
  taxAmount: number;
  /** The orders sold in the period (refunds count none). */
  orderCount: number;
}

export const taxReportRowSchema = z.object({
  period: z.string().describe('The UTC month, YYYY-MM.'),
  country: z.string().describe('ISO 3166-1 alpha-2.'),
  subdivision: z.string().nullable().describe('The US state or Canadian province, if any.'),
  currency: z.string(),
  reverse_charge: z.boolean(),
  taxable_amount: z.int().describe('Sales less refunds, in minor units.'),
  tax_amount: z.int().describe('Tax collected less tax refunded, in minor units.'),
  order_count: z.int(),
});

export const taxReportSchema = z.object({ items: z.array(taxReportRowSchema) });

export const taxReportRowWire = (row: TaxReportRow): z.infer<typeof taxReportRowSchema> => ({
  period: row.period,
  country: row.country,
  subdivision: row.subdivision,
  currency: row.currency,
  reverse_charge: row.reverseCharge,
  taxable_amount: row.taxableAmount,
  tax_amount: row.taxAmount,
  order_count: row.orderCount,
});
