/**
 * The customer calls the dashboard makes, typed by the API's own wire functions (type-only
 * imports: nothing of the server is bundled).
 */
import type {
  CustomerWire,
  customerBalanceEntryWire,
  customerStateWire,
} from '../../../../commerce/customers/schemas.ts';
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

/** One entry of the customer's balance ledger (credit positive). */
export type BalanceEntry = ReturnType<typeof customerBalanceEntryWire>;

/** The newest entries of the customer's balance ledger. */
export const fetchBalanceEntries = (id: string, signal: AbortSignal) =>
  api.get<ListResource<BalanceEntry>>(`${customerPath(id)}/balance/entries`, {
    query: { limit: 100 },
    signal,
  });

/** A seller's credit (or, negative, debit) of the customer's balance, with its reason. */
export const adjustBalance = (id: string, adjustment: BalanceAdjustment) =>
  api.post<{ entry: BalanceEntry }>(`${customerPath(id)}/balance/adjustments`, adjustment);

export interface BalanceAdjustment {
  amount: number;
  currency: string;
  reason: string;
}
