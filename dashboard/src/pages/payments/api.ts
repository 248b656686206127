/** The payment calls the dashboard makes, typed by the API's own wire function (type-only). */
import type { PaymentWire } from '../../../../commerce/payments/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Payment = PaymentWire;

/** Every payment query starts with this key. */
export const paymentsKey = ['payments'] as const;

export const paymentStatusOptions = [
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
];

/** The methods Tollgate's Stripe payments record: cards only (Checkout takes nothing else). */
export const paymentMethodOptions = [{ value: 'card', label: 'Card' }];

export const paymentsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Payment>>('/v1/payments/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<Payment>(`/v1/payments/${encodeURIComponent(id)}`, { signal }),
};
