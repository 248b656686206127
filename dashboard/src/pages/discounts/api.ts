/** The discount calls the discount pages make, typed by the API's own wire function. */
import type { DiscountWire } from '../../../../commerce/discounts/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Discount = DiscountWire;

/** Every discount query starts with this key, so one invalidation refreshes them all. */
export const discountsKey = ['discounts'] as const;

export const discountsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Discount>>('/v1/discounts/', { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<Discount>(`/v1/discounts/${id}`, { signal }),
  create: (body: unknown) => api.post<Discount>('/v1/discounts/', body),
  update: (id: string, body: unknown) => api.patch<Discount>(`/v1/discounts/${id}`, body),
  delete: (id: string) => api.delete<null>(`/v1/discounts/${id}`),
};
