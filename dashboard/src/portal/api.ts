/**
 * The customer portal endpoints (/v1/customer-portal, reference §4.9) the hosted portal page
 * calls with the customer's session token, and the wire shapes it reads (snake_case, as the API
 * answers them; only the fields the page shows).
 */
import {
  type Address,
  type CustomerBenefitGrant,
  call,
  type LicenseKey,
  type ListResource,
  type Price,
} from '../checkout/api';

type Interval = 'day' | 'week' | 'month' | 'year';

export interface PortalOrganization {
  id: string;
  name: string;
  slug: string;
  avatar_url: string | null;
  subscription_settings?: { allow_customer_updates: boolean };
}

export interface PortalCustomer {
  id: string;
  email: string;
  name: string | null;
  billing_name: string | null;
  billing_address: Address | null;
  tax_id: [string, string] | string | null;
  oauth_accounts: Record<string, { account_id: string; account_username: string | null }>;
  default_payment_method_id?: string | null;
  /** Tollgate's: the customer's credit with the seller (positive), spent before the card. */
  balance?: { balance: number; currency: string };
}

export interface CustomerOrder {
  id: string;
  created_at: string;
  status: 'pending' | 'paid' | 'refunded' | 'partially_refunded';
  paid: boolean;
  total_amount: number;
  currency: string;
  billing_reason: string;
  invoice_number: string;
  is_invoice_generated: boolean;
  subscription_id: string | null;
  product: { id: string; name: string; organization: PortalOrganization };
  next_payment_attempt_at?: string | null;
}

export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid';

export interface CustomerSubscription {
  id: string;
  amount: number;
  /** The seats a seat-based plan bills; null for other plans. */
  seats?: number | null;
  prices?: Price[];
  currency: string;
  recurring_interval: Interval;
  status: SubscriptionStatus;
  current_period_end: string | null;
  trial_end: string | null;
  cancel_at_period_end: boolean;
  ends_at: string | null;
  ended_at: string | null;
  started_at: string | null;
  product_id: string;
  product: { id: string; name: string; organization: PortalOrganization };
  /** Usage of the plan's metered prices this period. */
  meters: { id: string; consumed_units: number; amount: number; meter: { name: string } }[];
}

export interface CustomerProduct {
  id: string;
  name: string;
  is_recurring: boolean;
  is_archived: boolean;
  recurring_interval: Interval | null;
  prices: Price[];
}

export interface PaymentMethod {
  id: string;
  type: string;
  method_metadata?: { brand: string; last4: string; exp_month: number; exp_year: number };
}

export type PaymentMethodAdded =
  | { status: 'succeeded'; payment_method: PaymentMethod }
  | { status: 'requires_action'; client_secret: string; next_action_url?: string };

export interface PaymentConfirmation {
  status: string;
  client_secret?: string | null;
  /** Where the bank's check is when Stripe.js does not run it (the Stripe simulator's page). */
  next_action_url?: string;
  error?: string | null;
}

export interface OrderPaymentStatus {
  status: 'succeeded' | 'failed' | 'pending';
  error: string | null;
}

/** The customer's standing on one of the seller's meters (units used, credited, left). */
export interface CustomerMeter {
  id: string;
  modified_at: string | null;
  consumed_units: number;
  credited_units: number;
  balance: number;
  meter: { id: string; name: string };
}

/** A grant, with the account a Discord or GitHub grant is given to once linked. */
export type BenefitGrant = CustomerBenefitGrant & {
  properties: CustomerBenefitGrant['properties'] & { account_id?: string | null };
};

export interface LicenseKeyActivation {
  id: string;
  label: string;
  created_at: string;
}

export interface LicenseKeyWithActivations extends LicenseKey {
  organization_id: string;
  benefit_id: string;
  limit_activations: number | null;
  activations: LicenseKeyActivation[];
}

export interface Downloadable {
  id: string;
  benefit_id: string;
  file: { id: string; name: string; size: number; download: { url: string; expires_at: string } };
}

export const cancellationReasons = [
  { id: 'too_expensive', label: 'Too expensive' },
  { id: 'missing_features', label: 'Missing features' },
  { id: 'switched_service', label: 'Switched to another service' },
  { id: 'unused', label: 'I don’t use it enough' },
  { id: 'too_complex', label: 'Too complex' },
  { id: 'low_quality', label: 'Quality was lower than expected' },
  { id: 'customer_service', label: 'Customer service' },
  { id: 'other', label: 'Other' },
] as const;

export type CancellationReason = (typeof cancellationReasons)[number]['id'];

const portal = '/v1/customer-portal';
const id = encodeURIComponent;
const all = '?limit=100';

/**
 * Asks for a sign-in link to the email (the answer is the same whether it is known or not); the
 * link opens the portal at `returnTo`.
 */
export const requestSignIn = (email: string, organizationSlug: string, returnTo: string) =>
  call<unknown>('POST', `${portal}/customer-session/request`, {
    body: { email, organization_slug: organizationSlug, return_to: returnTo },
  });

/** Trades the one-time token of a sign-in link for a customer session. */
export const authenticateSignIn = (token: string) =>
  call<{ token: string; expires_at: string; return_to: string }>(
    'POST',
    `${portal}/customer-session/authenticate`,
    { body: { token } },
  );

export const getOrganization = (slug: string) =>
  call<{ organization: PortalOrganization; products: CustomerProduct[] }>(
    'GET',
    `${portal}/organizations/${id(slug)}`,
  );

/** The calls a signed-in portal makes, each with the session token. */
export function portalApi(token: string) {
  const read = <T>(path: string) => call<T>('GET', `${portal}${path}`, { token });
  const write = <T>(method: string, path: string, body?: unknown) =>
    call<T>(method, `${portal}${path}`, { token, body });
  return {
    customer: () => read<PortalCustomer>('/customers/me'),
    updateCustomer: (update: {
      billing_name: string | null;
      billing_address: Address | null;
      tax_id: string | null;
    }) => write<PortalCustomer>('PATCH', '/customers/me', update),

    paymentMethods: () => read<ListResource<PaymentMethod>>(`/customers/me/payment-methods${all}`),
    addPaymentMethod: (confirmationTokenId: string, setDefault: boolean) =>
      write<PaymentMethodAdded>('POST', '/customers/me/payment-methods', {
        confirmation_token_id: confirmationTokenId,
        set_default: setDefault,
        return_url: window.location.href,
      }),
    /** Finishes adding a card after its 3-D Secure check. */
    confirmPaymentMethod: (setupIntentId: string, setDefault: boolean) =>
      write<PaymentMethodAdded>('POST', '/customers/me/payment-methods/confirm', {
        setup_intent_id: setupIntentId,
        set_default: setDefault,
      }),
    deletePaymentMethod: (methodId: string) =>
      write<null>('DELETE', `/customers/me/payment-methods/${id(methodId)}`),

    orders: (subscriptionId?: string) =>
      read<ListResource<CustomerOrder>>(
        `/orders/${all}${subscriptionId ? `&subscription_id=${id(subscriptionId)}` : ''}`,
      ),
    /** The billing name and address the order's invoice carries. */
    updateOrder: (
      orderId: string,
      billing: { billing_name: string | null; billing_address: Address | null },
    ) => write<CustomerOrder>('PATCH', `/orders/${id(orderId)}`, billing),
    generateInvoice: (orderId: string) => write<unknown>('POST', `/orders/${id(orderId)}/invoice`),
    invoice: (orderId: string) => read<{ url: string }>(`/orders/${id(orderId)}/invoice`),
    paymentStatus: (orderId: string) =>
      read<OrderPaymentStatus>(`/orders/${id(orderId)}/payment-status`),
    /**
     * Pays an order whose charge failed with `card`: a confirmation token (Stripe Elements), or
     * a payment method (a saved card, or one of Stripe's test cards in test mode).
     */
    confirmPayment: (orderId: string, card: string) =>
      write<PaymentConfirmation>('POST', `/orders/${id(orderId)}/confirm-payment`, {
        ...(card.startsWith('ctoken_')
          ? { confirmation_token_id: card }
          : { payment_method_id: card }),
        payment_processor: 'stripe',
      }),

    subscriptions: () => read<ListResource<CustomerSubscription>>(`/subscriptions/${all}`),
    updateSubscription: (
      subscriptionId: string,
      update:
        | { product_id: string }
        | { seats: number }
        | {
            cancel_at_period_end: boolean;
            cancellation_reason?: CancellationReason | null;
            cancellation_comment?: string | null;
          },
    ) => write<CustomerSubscription>('PATCH', `/subscriptions/${id(subscriptionId)}`, update),

    meters: () => read<ListResource<CustomerMeter>>(`/meters/${all}`),

    grants: () => read<ListResource<BenefitGrant>>(`/benefit-grants/${all}`),
    /** Where to send the customer to link the Discord or GitHub account a grant waits for. */
    linkAccount: (platform: string, returnTo: string) =>
      read<{ url: string }>(
        `/oauth-accounts/authorize?platform=${id(platform)}&return_to=${id(returnTo)}`,
      ),

    downloadables: () => read<ListResource<Downloadable>>(`/downloadables/${all}`),

    licenseKeys: () => read<ListResource<LicenseKey>>(`/license-keys/${all}`),
    licenseKey: (keyId: string) => read<LicenseKeyWithActivations>(`/license-keys/${id(keyId)}`),
    /**
     * Frees an activation's slot. With the session, as the customer: refused unless the seller
     * lets customers manage activations (the benefit's `enable_customer_admin`).
     */
    deactivate: (key: LicenseKeyWithActivations, activationId: string) =>
      write<null>('POST', '/license-keys/deactivate', {
        key: key.key,
        organization_id: key.organization_id,
        activation_id: activationId,
      }),
  };
}

export type PortalApi = ReturnType<typeof portalApi>;
