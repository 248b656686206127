import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Metadata } from '../../db/entities/columns.ts';
import type { Address } from '../../db/entities/customer.ts';
import type { Customer, CustomerBalanceEntry } from '../../db/entities/index.ts';
import type { RecurringInterval } from '../../db/entities/product.ts';
import { addressInput } from '../../domain/addresses.ts';
import { visibleGrantProperties } from '../../domain/benefit-properties.ts';
import { type BenefitType, benefitTypes } from '../../domain/benefit-types.ts';
import { customerBalanceEntryKinds } from '../../domain/customer-balance.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { priceCurrencies, recurringIntervals } from '../../domain/prices.ts';
import { taxIdFormats } from '../../domain/tax-ids.ts';
import { grantPropertiesWireSchema } from '../benefit-grants/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

// The columns are varchar(255): longer text is refused at its field, not by the database.
const text = z.string().trim().max(255);

/** Blank text is no value, as in Polar: `""` is stored as null. */
const optionalText = text.nullish().transform((value) => value || null);

const email = z.email({ message: 'Invalid email address.' }).max(255);

/**
 * A tax id as the SDK sends it, `[value, format]`. Only the value counts: the format is
 * recognised again from the billing country, as Polar does.
 */
const taxIdInput = z.tuple([text.min(1), z.enum(taxIdFormats).nullish()]);

export const customerCreateInput = z.object({
  email,
  external_id: optionalText,
  name: optionalText,
  billing_address: addressInput.nullish(),
  tax_id: taxIdInput.nullish(),
  metadata: metadataInput.default({}),
  organization_id: z.uuid().nullish(),
  /** Sandbox only (Tollgate's own): the test clock the customer's subscriptions follow. */
  test_clock_id: z.uuid().nullish(),
});
export type CustomerCreateInput = z.infer<typeof customerCreateInput>;

/** Absent keys keep their value; `null` clears where Polar allows it. */
export const customerUpdateInput = z.object({
  email: email.nullish(),
  name: optionalText.optional(),
  billing_address: addressInput.nullish(),
  tax_id: taxIdInput.nullish(),
  metadata: metadataInput.optional(),
  external_id: optionalText.optional(),
});
export type CustomerUpdateInput = z.infer<typeof customerUpdateInput>;

/** Updating by external id cannot touch the external id itself (Polar's `CustomerUpdateExternalID`). */
export const customerUpdateByExternalIdInput = customerUpdateInput.omit({ external_id: true });

export const customerListQuery = z
  .object({
    email: z.string().trim().min(1).optional(),
    query: z.string().trim().optional(),
  })
  .loose();

export const customerSortFields = ['created_at', 'email', 'name'] as const;

/** The `{external_id}` of /v1/customers/external/{external_id}. */
export const customerExternalIdParams = z.object({ external_id: z.string().min(1) });

/** A postal address as Polar answers it (Polar's `Address`). */
export const addressWireSchema = z
  .object({
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    postal_code: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().length(2),
  })
  .meta({ id: 'Address' });

/** Polar's `Customer`. */
export const customerWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    metadata: metadataWireSchema,
    external_id: z.string().nullable(),
    email: z.string(),
    email_verified: z.boolean(),
    name: z.string().nullable(),
    billing_address: addressWireSchema.nullable(),
    /** `[value, format]`. */
    tax_id: z.tuple([z.string(), z.string()]).nullable(),
    organization_id: z.uuid(),
    deleted_at: dateTimeWireSchema.nullable(),
    avatar_url: z.string(),
  })
  .meta({ id: 'Customer' });
export type CustomerWire = z.input<typeof customerWireSchema>;

/** Polar's `CustomerStateBenefitGrant`. */
export const customerStateGrantWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    granted_at: dateTimeWireSchema,
    benefit_id: z.uuid(),
    benefit_type: z.enum(benefitTypes),
    benefit_metadata: metadataWireSchema,
    properties: grantPropertiesWireSchema,
  })
  .meta({ id: 'CustomerStateBenefitGrant' });

/** Polar's `CustomerStateMeter`. */
export const customerStateMeterWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    meter_id: z.uuid(),
    consumed_units: z.number(),
    credited_units: z.int(),
    balance: z.number(),
  })
  .meta({ id: 'CustomerStateMeter' });

/** Polar's `CustomerStateSubscription`. */
export const customerStateSubscriptionWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    custom_field_data: z.record(z.string(), z.unknown()),
    metadata: metadataWireSchema,
    status: z.enum(['active', 'trialing']),
    amount: z.int(),
    currency: z.string(),
    recurring_interval: z.enum(recurringIntervals),
    current_period_start: dateTimeWireSchema,
    current_period_end: dateTimeWireSchema.nullable(),
    trial_start: dateTimeWireSchema.nullable(),
    trial_end: dateTimeWireSchema.nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: dateTimeWireSchema.nullable(),
    started_at: dateTimeWireSchema.nullable(),
    ends_at: dateTimeWireSchema.nullable(),
    product_id: z.uuid(),
    discount_id: z.uuid().nullable(),
    meters: z.array(z.never()),
  })
  .meta({ id: 'CustomerStateSubscription' });

/**
 * Polar's `CustomerBalance`, in minor units: positive is credit the customer has to spend,
 * negative what it owes (Polar's sign). The sum of the customer's ledger entries.
 */
export const customerBalanceWireSchema = z
  .object({ balance: z.int(), currency: z.string() })
  .meta({ id: 'CustomerBalance' });

/**
 * Polar's `CustomerState`: the customer with what it has now, and Tollgate's `balance` (the
 * SDK's schemas ignore keys they do not know).
 */
export const customerStateWireSchema = customerWireSchema
  .extend({
    active_subscriptions: z.array(customerStateSubscriptionWireSchema),
    granted_benefits: z.array(customerStateGrantWireSchema),
    active_meters: z.array(customerStateMeterWireSchema),
    balance: customerBalanceWireSchema,
  })
  .meta({ id: 'CustomerState' });

/** The currency a balance is answered in when none is asked (the only one prices have yet). */
export const defaultBalanceCurrency = priceCurrencies[0];

/** `?currency=` of the balance (Tollgate's; Polar answers its one currency, as the default does). */
export const customerBalanceQuery = z
  .object({ currency: z.enum(priceCurrencies).default(defaultBalanceCurrency) })
  .loose();

/** A seller's adjustment of a customer's balance (Tollgate's): credit positive, debit negative. */
export const customerBalanceAdjustmentInput = z.object({
  amount: z
    .int()
    .min(-100_000_000)
    .max(100_000_000)
    .refine((amount) => amount !== 0, 'Amount must not be zero.'),
  currency: z.enum(priceCurrencies),
  reason: z.string().trim().min(1, 'A reason is required.').max(500),
});

/** One entry of a customer's balance ledger (Tollgate's `CustomerBalanceEntry`). */
export const customerBalanceEntryWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    customer_id: z.uuid(),
    amount: z.int(),
    currency: z.string(),
    kind: z.enum(customerBalanceEntryKinds),
    reason: z.string(),
    order_id: z.uuid().nullable(),
    subscription_id: z.uuid().nullable(),
    created_by_user_id: z.uuid().nullable(),
  })
  .meta({ id: 'CustomerBalanceEntry' });

export function customerBalanceEntryWire(
  entry: CustomerBalanceEntry,
): z.input<typeof customerBalanceEntryWireSchema> {
  return {
    id: entry.id,
    created_at: isoDateTime(entry.createdAt),
    customer_id: entry.customer.id,
    amount: entry.amount,
    currency: entry.currency,
    kind: entry.kind,
    reason: entry.reason,
    order_id: entry.order?.id ?? null,
    subscription_id: entry.subscription?.id ?? null,
    created_by_user_id: entry.createdByUserId ?? null,
  };
}

/** What an adjustment answers: its entry and the balance after it. */
export const customerBalanceAdjustmentWireSchema = z
  .object({ entry: customerBalanceEntryWireSchema, balance: customerBalanceWireSchema })
  .meta({ id: 'CustomerBalanceAdjustment' });

/** A postal address as Polar answers it (`postal_code`, country upper-case alpha-2). */
export function addressWire(address: Address): z.input<typeof addressWireSchema> {
  return {
    line1: address.line1,
    line2: address.line2,
    postal_code: address.postalCode,
    city: address.city,
    state: address.state,
    country: address.country,
  };
}

/**
 * Polar answers a non-null avatar for every customer: a Gravatar URL for the lower-cased email
 * that falls back to a generated identicon when the address has no Gravatar.
 */
export function customerAvatarUrl(email: string): string {
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?d=identicon`;
}

/** A customer as /v1 answers it (Polar's `Customer`). */
export function customerWire(customer: Customer): CustomerWire {
  return {
    id: customer.id,
    created_at: isoDateTime(customer.createdAt),
    modified_at: isoDateTimeOrNull(customer.modifiedAt),
    metadata: customer.metadata,
    external_id: customer.externalId ?? null,
    email: customer.email,
    email_verified: customer.emailVerified,
    name: customer.name ?? null,
    billing_address: customer.billingAddress ? addressWire(customer.billingAddress) : null,
    tax_id: customer.taxId ?? null,
    organization_id: customer.organization.id,
    deleted_at: isoDateTimeOrNull(customer.deletedAt),
    avatar_url: customerAvatarUrl(customer.email),
  };
}

/** A current benefit grant as the state query reads it, with its benefit's type and metadata. */
export interface CustomerStateGrantRow {
  id: string;
  created_at: string;
  modified_at: string | null;
  granted_at: string;
  benefit_id: string;
  benefit_type: BenefitType;
  benefit_metadata: Metadata;
  properties: Record<string, unknown>;
}

/** A customer meter as the state query reads it: decimals as exact text. */
export interface CustomerStateMeterRow {
  id: string;
  created_at: string;
  modified_at: string | null;
  meter_id: string;
  consumed_units: string;
  credited_units: number;
  balance: string;
}

/** An active or trialing subscription as the state query reads it (timestamps as JSON text). */
export interface CustomerStateSubscriptionRow {
  id: string;
  created_at: string;
  modified_at: string | null;
  custom_field_data: Record<string, unknown>;
  metadata: Metadata;
  status: 'active' | 'trialing';
  amount: number;
  currency: string;
  recurring_interval: RecurringInterval;
  current_period_start: string;
  current_period_end: string | null;
  trial_start: string | null;
  trial_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  started_at: string | null;
  ends_at: string | null;
  product_id: string;
  discount_id: string | null;
}

/** A customer with what it holds now: current benefit grants, meters and subscriptions. */
export interface CustomerState {
  customer: Customer;
  grants: CustomerStateGrantRow[];
  meters: CustomerStateMeterRow[];
  subscriptions: CustomerStateSubscriptionRow[];
  balance: { balance: number; currency: string };
}

const isoDateTimeText = (text: string) => isoDateTime(new Date(text));
const isoDateTimeTextOrNull = (text: string | null) => (text ? isoDateTimeText(text) : null);

/** A benefit the customer holds now (Polar's `CustomerStateBenefitGrant`). */
export function customerStateGrantWire(
  grant: CustomerStateGrantRow,
): z.input<typeof customerStateGrantWireSchema> {
  return {
    id: grant.id,
    created_at: isoDateTimeText(grant.created_at),
    modified_at: isoDateTimeTextOrNull(grant.modified_at),
    granted_at: isoDateTimeText(grant.granted_at),
    benefit_id: grant.benefit_id,
    benefit_type: grant.benefit_type,
    benefit_metadata: grant.benefit_metadata,
    properties: visibleGrantProperties(grant.benefit_type, grant.properties),
  };
}

/** The customer's standing on a meter (Polar's `CustomerStateMeter`); units as JSON numbers. */
export function customerStateMeterWire(
  customerMeter: CustomerStateMeterRow,
): z.input<typeof customerStateMeterWireSchema> {
  return {
    id: customerMeter.id,
    created_at: isoDateTimeText(customerMeter.created_at),
    modified_at: isoDateTimeTextOrNull(customerMeter.modified_at),
    meter_id: customerMeter.meter_id,
    consumed_units: Number(customerMeter.consumed_units),
    credited_units: customerMeter.credited_units,
    balance: Number(customerMeter.balance),
  };
}

/** A subscription the customer has now (Polar's `CustomerStateSubscription`). */
export function customerStateSubscriptionWire(
  subscription: CustomerStateSubscriptionRow,
): z.input<typeof customerStateSubscriptionWireSchema> {
  return {
    ...subscription,
    created_at: isoDateTimeText(subscription.created_at),
    modified_at: isoDateTimeTextOrNull(subscription.modified_at),
    current_period_start: isoDateTimeText(subscription.current_period_start),
    current_period_end: isoDateTimeTextOrNull(subscription.current_period_end),
    trial_start: isoDateTimeTextOrNull(subscription.trial_start),
    trial_end: isoDateTimeTextOrNull(subscription.trial_end),
    canceled_at: isoDateTimeTextOrNull(subscription.canceled_at),
    started_at: isoDateTimeTextOrNull(subscription.started_at),
    ends_at: isoDateTimeTextOrNull(subscription.ends_at),
    // Metered prices of subscriptions are billed with the subscriptions issue.
    meters: [] as never[],
  };
}

/** Everything a customer has now (Polar's `CustomerState`). */
export function customerStateWire({
  customer,
  grants,
  meters,
  subscriptions,
  balance,
}: CustomerState): z.input<typeof customerStateWireSchema> {
  return {
    ...customerWire(customer),
    active_subscriptions: subscriptions.map(customerStateSubscriptionWire),
    granted_benefits: grants.map(customerStateGrantWire),
    active_meters: meters.map(customerStateMeterWire),
    balance,
  };
}
