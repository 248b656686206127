/**
 * The customer calls the dashboard makes, typed by the API's own wire functions (type-only
 * imports: nothing of the server is bundled).
 */
import type { CustomerWire, customerStateWire } from '../../../../commerce/customers/schemas.ts';
import type { licenseKeyWire } from '../../../../commerce/license-keys/schemas.ts';
import { api, type ListResource } from '../../api/client';

export type Customer = CustomerWire;
/** GET /v1/customers/{id}/state: the customer and what it holds now. */
export type CustomerState = ReturnType<typeof customerStateWire>;
export type LicenseKey = ReturnType<typeof licenseKeyWire>;

const customerPath = (id: string) => `/v1/customers/${encodeURIComponent(id)}`;

export const fetchCustomers = (
  query: Record<string, string | number | string[]>,
  signal: AbortSignal,
) => api.get<ListResource<Customer>>('/v1/customers/', { query, signal });

export const fetchCustomer = (id: string, signal: AbortSignal) =>
  api.get<Customer>(customerPath(id), { signal });

export const fetchCustomerState = (id: string, signal: AbortSignal) =>
  api.get<CustomerState>(`${customerPath(id)}/state`, { signal });

/** The customer's license keys (up to a hundred: a customer holds a few). */
export const fetchLicenseKeys = (customerId: string, signal: AbortSignal) =>
  api.get<ListResource<LicenseKey>>('/v1/license-keys/', {
    query: { customer_id: customerId, limit: 100 },
    signal,
  });
