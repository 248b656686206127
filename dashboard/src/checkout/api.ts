/**
 * The public checkout endpoints (by client secret) and the customer portal reads the hosted
 * checkout page uses, with the wire shapes it reads (Polar's `CheckoutPublic` and friends,
 * snake_case as the API answers them).
 */

export type BillingAddressFieldMode = 'required' | 'optional' | 'disabled';
export type AddressField = 'country' | 'state' | 'city' | 'postal_code' | 'line1' | 'line2';

export interface Address {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

interface PriceBase {
  id: string;
  type: 'one_time' | 'recurring';
  recurring_interval: 'day' | 'week' | 'month' | 'year' | null;
  price_currency: string;
  is_archived: boolean;
}

export type Price =
  | (PriceBase & { amount_type: 'fixed'; price_amount: number })
  | (PriceBase & {
      amount_type: 'custom';
      minimum_amount: number | null;
      maximum_amount: number | null;
      preset_amount: number | null;
    })
  | (PriceBase & { amount_type: 'free' })
  | (PriceBase & { amount_type: 'seat_based'; price_per_seat: number })
  | (PriceBase & { amount_type: 'metered_unit' });

export interface CheckoutProduct {
  id: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  prices: Price[];
  benefits: { id: string; type: string; description: string }[];
}

interface CustomFieldBase {
  id: string;
  slug: string;
  name: string;
  properties: {
    form_label?: string;
    form_help_text?: string;
    form_placeholder?: string;
    textarea?: boolean;
    min_length?: number;
    max_length?: number;
    ge?: number;
    le?: number;
    options?: { value: string; label: string }[];
  };
}

export type CustomField = CustomFieldBase & {
  type: 'text' | 'number' | 'date' | 'checkbox' | 'select';
};

export interface AttachedCustomField {
  custom_field_id: string;
  custom_field: CustomField;
  order: number;
  required: boolean;
}

export type CustomFieldValue = string | number | boolean | null;

export interface CheckoutDiscount {
  id: string;
  name: string;
  code: string | null;
  type: 'fixed' | 'percentage';
  amount?: number;
  basis_points?: number;
  duration: 'once' | 'forever' | 'repeating';
  duration_in_months?: number;
}

/** Tollgate's addition: one tax line of the checkout (the rate in basis points: 1900 = 19 %). */
export interface TaxLine {
  jurisdiction: string;
  display_name: string;
  rate_bps: number;
  taxable_amount: number;
  tax_amount: number;
  inclusive: boolean;
  /** EU B2B across borders: no tax, the buyer accounts for it. */
  reverse_charge: boolean;
}

export type CheckoutStatus = 'open' | 'expired' | 'confirmed' | 'succeeded' | 'failed';

export interface CheckoutPublic {
  id: string;
  status: CheckoutStatus;
  client_secret: string;
  url: string;
  success_url: string;
  expires_at: string;
  amount: number;
  /** The seats bought of a seat-based price; null for other prices. */
  seats?: number | null;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  /** The lines behind `tax_amount`, once the buyer's country is known (Tollgate's addition). */
  tax_lines: TaxLine[];
  total_amount: number;
  currency: string;
  product_id: string;
  product_price_id: string;
  discount_id: string | null;
  allow_discount_codes: boolean;
  is_discount_applicable: boolean;
  is_free_product_price: boolean;
  is_payment_required: boolean;
  is_payment_form_required: boolean;
  is_business_customer: boolean;
  require_billing_address: boolean;
  /** The free trial the buyer gets before the first charge; null: none. */
  active_trial_interval: 'day' | 'week' | 'month' | 'year' | null;
  active_trial_interval_count: number | null;
  trial_end: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_billing_name: string | null;
  customer_billing_address: Address | null;
  customer_tax_id: string | null;
  billing_address_fields: Record<AddressField, BillingAddressFieldMode>;
  products: CheckoutProduct[];
  product: CheckoutProduct;
  product_price: Price;
  discount: CheckoutDiscount | null;
  attached_custom_fields: AttachedCustomField[];
  custom_field_data?: Record<string, CustomFieldValue>;
  organization: { id: string; name: string; slug: string; avatar_url: string | null };
  /** Tollgate's addition: why the last payment attempt failed (the processor's message). */
  payment_error?: { code?: string; message: string } | null;
  /**
   * Tollgate's additions: what the customer's balance pays of `total_amount`, and what is left
   * for the card.
   */
  from_balance_amount: number;
  amount_due: number;
}

export interface CheckoutConfirmed extends CheckoutPublic {
  /**
   * The buyer's portal session, usable once the checkout succeeded; empty when the buyer is not
   * known to be the customer (an existing customer matched by the email typed).
   */
  customer_session_token: string;
}

/** CheckoutUpdatePublic: what the buyer may change. */
export interface CheckoutUpdate {
  product_id?: string;
  product_price_id?: string;
  amount?: number | null;
  seats?: number | null;
  is_business_customer?: boolean;
  customer_name?: string | null;
  customer_email?: string | null;
  customer_billing_name?: string | null;
  customer_billing_address?: Address | null;
  customer_tax_id?: string | null;
  discount_code?: string | null;
  custom_field_data?: Record<string, CustomFieldValue>;
}

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

/** An answer other than 2xx: its status, Polar's error name and message, and 422 issues. */
export class CheckoutApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly issues: ValidationIssue[];

  constructor(status: number, body: unknown) {
    const { error, detail } = (body ?? {}) as { error?: string; detail?: unknown };
    const issues = Array.isArray(detail) ? (detail as ValidationIssue[]) : [];
    const message =
      typeof detail === 'string' ? detail : (issues[0]?.msg ?? `Request failed (${status})`);
    super(message);
    this.name = 'CheckoutApiError';
    this.status = status;
    this.error = error ?? '';
    this.issues = issues;
  }
}

/** A JSON call to the API (the portal's too); answers other than 2xx throw `CheckoutApiError`. */
export async function call<T>(
  method: string,
  path: string,
  { body, token }: { body?: unknown; token?: string } = {},
): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      Accept: 'application/json',
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
      ...(token && { Authorization: `Bearer ${token}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new CheckoutApiError(response.status, { detail: 'The server answered unexpectedly.' });
  }
  if (!response.ok) throw new CheckoutApiError(response.status, parsed);
  return parsed as T;
}

const checkoutPath = (clientSecret: string) =>
  `/v1/checkouts/client/${encodeURIComponent(clientSecret)}`;

export const getCheckout = (clientSecret: string) =>
  call<CheckoutPublic>('GET', checkoutPath(clientSecret));

export const updateCheckout = (clientSecret: string, update: CheckoutUpdate) =>
  call<CheckoutPublic>('PATCH', checkoutPath(clientSecret), { body: update });

export const confirmCheckout = (
  clientSecret: string,
  confirmation: CheckoutUpdate & { confirmation_token_id: string | null },
) =>
  call<CheckoutConfirmed>('POST', `${checkoutPath(clientSecret)}/confirm`, {
    body: confirmation,
  });

export interface CustomerBenefitGrant {
  id: string;
  is_granted: boolean;
  is_revoked: boolean;
  benefit_id: string;
  benefit: {
    id: string;
    type: string;
    description: string;
    properties: { note?: string | null };
  };
  properties: { license_key_id?: string; display_key?: string };
}

export interface ListResource<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export interface LicenseKey {
  id: string;
  key: string;
  display_key: string;
  status: string;
  expires_at: string | null;
}

/** The session customer's grants; only those a checkout's order gave when `checkoutId` is set. */
export function listGrants(token: string, checkoutId?: string) {
  const query = new URLSearchParams({ limit: '100' });
  if (checkoutId) query.set('checkout_id', checkoutId);
  return call<ListResource<CustomerBenefitGrant>>(
    'GET',
    `/v1/customer-portal/benefit-grants/?${query}`,
    { token },
  );
}

export const getLicenseKey = (token: string, id: string) =>
  call<LicenseKey>('GET', `/v1/customer-portal/license-keys/${encodeURIComponent(id)}`, {
    token,
  });
