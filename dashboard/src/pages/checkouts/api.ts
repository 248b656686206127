/** The checkout calls the dashboard makes, typed by the API's own wire function (type-only). */
import type { CheckoutWire } from '../../../../commerce/checkouts/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Checkout = CheckoutWire;

/** Every checkout query starts with this key. */
export const checkoutsKey = ['checkouts'] as const;

export const checkoutStatusOptions = [
  { value: 'open', label: 'Open' },
  { value: 'confirmed', label: 'Confirmed (paying)' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
  { value: 'expired', label: 'Expired' },
];

export const checkoutsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Checkout>>('/v1/checkouts/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<Checkout>(`/v1/checkouts/${encodeURIComponent(id)}`, { signal }),
};
