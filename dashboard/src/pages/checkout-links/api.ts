/** The checkout link calls the checkout link pages make, typed by the API's own wire function. */
import type { CheckoutLinkWire } from '../../../../commerce/checkout-links/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type CheckoutLink = CheckoutLinkWire;

/** Every checkout link query starts with this key, so one invalidation refreshes them all. */
export const checkoutLinksKey = ['checkout-links'] as const;

export const checkoutLinksApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<CheckoutLink>>('/v1/checkout-links/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<CheckoutLink>(`/v1/checkout-links/${id}`, { signal }),
  create: (body: unknown) => api.post<CheckoutLink>('/v1/checkout-links/', body),
  update: (id: string, body: unknown) => api.patch<CheckoutLink>(`/v1/checkout-links/${id}`, body),
  delete: (id: string) => api.delete<null>(`/v1/checkout-links/${id}`),
};

/** A link without a label is named by its products. */
export const linkName = (link: CheckoutLink) =>
  link.label ?? link.products.map((product) => product.name).join(', ');
