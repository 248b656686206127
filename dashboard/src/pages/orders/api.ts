/**
 * The order calls the dashboard makes, typed by the API's own wire function (a type-only
 * import: nothing of the server is bundled).
 */
import type { OrderWire } from '../../../../commerce/orders/schemas.ts';
import { api, type ListResource } from '../../api/client';

export type Order = OrderWire;
export type BillingReason = Order['billing_reason'];

export const billingReasonLabels: Record<BillingReason, string> = {
  purchase: 'One-time purchase',
  subscription_create: 'Subscription start',
  subscription_cycle: 'Renewal',
  subscription_update: 'Plan change',
};

export const orderPath = (id: string) => `/v1/orders/${encodeURIComponent(id)}`;

export const fetchOrders = (
  query: Record<string, string | number | string[]>,
  signal: AbortSignal,
) => api.get<ListResource<Order>>('/v1/orders/', { query, signal });

export const fetchOrder = (id: string, signal: AbortSignal) =>
  api.get<Order>(orderPath(id), { signal });

/** The signed link of a generated invoice. */
export const fetchInvoiceUrl = (id: string) =>
  api.get<{ url: string }>(`${orderPath(id)}/invoice`).then((invoice) => invoice.url);

export const generateInvoice = (id: string) => api.post<null>(`${orderPath(id)}/invoice`);
