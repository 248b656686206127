/** The calls of the Tax page: the seller's rates (/v1/tax-rates) and the tax report. */
import type { z } from 'zod';
import type { taxRateWireSchema } from '../../../../commerce/tax-rates/schemas.ts';
import type { taxReportRowSchema } from '../../../../commerce/tax-report/schemas.ts';
import { api, type ListResource, withQuery } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type TaxRate = z.output<typeof taxRateWireSchema>;
export type TaxReportRow = z.output<typeof taxReportRowSchema>;

/** Every query of the Tax page starts with this key, so one invalidation refreshes them all. */
export const taxKey = ['tax'] as const;
export const taxRatesKey = [...taxKey, 'rates'] as const;

/** The report's range: UTC days, both included. */
export interface ReportRange {
  start_date: string;
  end_date: string;
}

export const taxReportPath = (range: ReportRange, format: 'json' | 'csv') =>
  withQuery('/v1/tax-report', { ...range, format });

export const taxApi = {
  listRates: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<TaxRate>>('/v1/tax-rates/', { query, signal }),
  createRate: (body: unknown) => api.post<TaxRate>('/v1/tax-rates/', body),
  updateRate: (id: string, body: unknown) => api.patch<TaxRate>(`/v1/tax-rates/${id}`, body),
  deleteRate: (id: string) => api.delete<null>(`/v1/tax-rates/${id}`),
  report: (range: ReportRange, signal: AbortSignal) =>
    api.get<{ items: TaxReportRow[] }>(taxReportPath(range, 'json'), { signal }),
};

/** `19` → 1900, `7.25` → 725: a percentage typed by a person, in basis points (no floats). */
export function percentToBps(text: string): number | null {
  const match = /^\s*(\d{1,3})(?:[.,](\d{1,2}))?\s*%?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
