/**
 * The refund calls the dashboard makes, typed by the API's own wire function and input schema
 * (type-only imports: nothing of the server is bundled).
 */
import type { RefundCreateInput, RefundWire } from '../../../../commerce/refunds/schemas.ts';
import type { RefundReason } from '../../../../domain/refunds.ts';
import { api, type ListResource } from '../../api/client';

export type Refund = RefundWire;

export const reasonLabels: Record<RefundReason, string> = {
  duplicate: 'Duplicate',
  fraudulent: 'Fraudulent',
  customer_request: 'Customer request',
  service_disruption: 'Service disruption',
  satisfaction_guarantee: 'Satisfaction guarantee',
  other: 'Other',
};

/** The signed link of a succeeded refund's credit note (HTML; `&format=pdf` for its PDF). */
export const fetchCreditNoteUrl = (id: string) =>
  api.get<{ url: string }>(`/v1/refunds/${id}/credit-note`).then((creditNote) => creditNote.url);

export const fetchRefunds = (
  query: Record<string, string | number | boolean | string[]>,
  signal: AbortSignal,
) => api.get<ListResource<Refund>>('/v1/refunds/', { query, signal });

/** What the refund form sends (Polar's `RefundCreate`, without metadata). */
export type RefundCreate = Pick<
  RefundCreateInput,
  'order_id' | 'reason' | 'amount' | 'comment' | 'revoke_benefits'
>;

export const createRefund = (refund: RefundCreate) => api.post<Refund>('/v1/refunds/', refund);
