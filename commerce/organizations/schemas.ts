import { z } from 'zod';
import type { Organization } from '../../db/entities/index.ts';
import { addressCountries, addressInput } from '../../domain/addresses.ts';
import {
  brandColorPattern,
  type CustomerEmailSettings,
  customerEmailSettingsOf,
  dunningFinalStatuses,
  invoiceSettingsOf,
  notificationSettingsOf,
  socialPlatforms,
  subscriptionSettingsOf,
} from '../../domain/organization-settings.ts';
import { prorationBehaviors } from '../../domain/subscriptions.ts';
import { taxModes, taxSettingsOf } from '../../domain/tax.ts';
import { customerProductWireSchema } from '../products/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

const nullableText = z.string().trim().min(1).nullable();

export const organizationUpdateInput = z.object({
  name: z.string().trim().min(3).max(255).nullable().optional(),
  avatar_url: z.url().nullable().optional(),
  email: z.email().nullable().optional(),
  website: z.url().nullable().optional(),
  socials: z
    .array(z.object({ platform: z.enum(socialPlatforms), url: z.url() }))
    .nullable()
    .optional(),
  details: z.record(z.string(), z.unknown()).nullable().optional(),
  feature_settings: z
    .object({
      issue_funding_enabled: z.boolean().optional(),
      seat_based_pricing_enabled: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  subscription_settings: z
    .object({
      allow_multiple_subscriptions: z.boolean(),
      allow_customer_updates: z.boolean(),
      proration_behavior: z.enum(prorationBehaviors),
      // Tollgate's own dunning settings; left out, they keep their current values.
      dunning_retry_days: z
        .array(z.number().int().min(1).max(365))
        .max(10)
        .refine((days) => days.every((day, index) => index === 0 || day > (days[index - 1] ?? 0)), {
          message: 'Retry days must be ascending.',
        })
        .optional(),
      dunning_final_status: z.enum(dunningFinalStatuses).optional(),
    })
    .nullable()
    .optional(),
  // Polar's two keys, and Tollgate's own `dunning` (kept when left out).
  notification_settings: z
    .object({
      new_order: z.boolean(),
      new_subscription: z.boolean(),
      dunning: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  // Tollgate's own: which mails the customers receive; keys left out keep their value.
  customer_email_settings: z
    .strictObject({
      order_confirmation: z.boolean().optional(),
      subscription_confirmation: z.boolean().optional(),
      subscription_cancellation: z.boolean().optional(),
      trial_ending: z.boolean().optional(),
      renewal_reminder: z.boolean().optional(),
      payment_recovered: z.boolean().optional(),
      card_expiring: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  // Tollgate's own: how the organization taxes its sales (docs/tax.md); keys left out keep their value.
  tax_settings: z
    .strictObject({
      mode: z.enum(taxModes).optional(),
      home_country: z
        .string()
        .trim()
        .toUpperCase()
        .refine((country) => addressCountries.has(country), { message: 'Invalid country.' })
        .nullable()
        .optional(),
      prices_include_tax: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  // Tollgate's own: the legal details and branding of its invoices; keys left out keep their value.
  invoice_settings: z
    .strictObject({
      legal_name: z.string().trim().min(1).max(255).nullable().optional(),
      address: addressInput.nullable().optional(),
      tax_id: z.string().trim().min(1).max(64).nullable().optional(),
      logo_url: z.url().nullable().optional(),
      brand_color: z
        .string()
        .regex(brandColorPattern, 'Brand colour must be #rrggbb.')
        .nullable()
        .optional(),
      footer: z.string().trim().min(1).max(1000).nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type OrganizationUpdateInput = z.infer<typeof organizationUpdateInput>;

/**
 * Polar's `OrganizationCreate`: the update's fields, with a name and a slug. The slug names the
 * storefront in URLs, so it is a URL segment as Polar makes them: lowercase letters and digits in
 * runs joined by single hyphens.
 */
export const organizationCreateInput = organizationUpdateInput.extend({
  name: z.string().trim().min(3).max(255),
  slug: z
    .string()
    .min(3)
    .max(128)
    .regex(
      /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
      'Slug may hold lowercase letters, digits and single hyphens.',
    ),
});
export type OrganizationCreateInput = z.infer<typeof organizationCreateInput>;

/** Polar's sort criteria for organizations (each also `-` prefixed). */
export const organizationSortFields = [
  'created_at',
  'slug',
  'name',
  'next_review_threshold',
  'days_in_status',
] as const;

export const organizationListQuery = z.object({ slug: nullableText.optional() }).loose();

/** Polar's `Organization`, with Tollgate's `customer_email_settings`. */
export const organizationWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    email: z.string().nullable(),
    website: z.string().nullable(),
    socials: z.array(z.object({ platform: z.enum(socialPlatforms), url: z.string() })),
    status: z.enum(['created', 'active']),
    details_submitted_at: dateTimeWireSchema.nullable(),
    feature_settings: z.object({
      issue_funding_enabled: z.boolean(),
      seat_based_pricing_enabled: z.boolean(),
    }),
    subscription_settings: z.object({
      allow_multiple_subscriptions: z.boolean(),
      allow_customer_updates: z.boolean(),
      proration_behavior: z.enum(prorationBehaviors),
      dunning_retry_days: z.array(z.int()),
      dunning_final_status: z.enum(dunningFinalStatuses),
    }),
    notification_settings: z.object({
      new_order: z.boolean(),
      new_subscription: z.boolean(),
      dunning: z.boolean(),
    }),
    customer_email_settings: z.object({
      order_confirmation: z.boolean(),
      subscription_confirmation: z.boolean(),
      subscription_cancellation: z.boolean(),
      trial_ending: z.boolean(),
      renewal_reminder: z.boolean(),
      payment_recovered: z.boolean(),
      card_expiring: z.boolean(),
    }),
    tax_settings: z.object({
      mode: z.enum(taxModes),
      home_country: z.string().nullable(),
      prices_include_tax: z.boolean(),
    }),
    invoice_settings: z.object({
      legal_name: z.string().nullable(),
      address: z
        .object({
          line1: z.string().nullable(),
          line2: z.string().nullable(),
          postal_code: z.string().nullable(),
          city: z.string().nullable(),
          state: z.string().nullable(),
          country: z.string(),
        })
        .nullable(),
      tax_id: z.string().nullable(),
      logo_url: z.string().nullable(),
      brand_color: z.string().nullable(),
      footer: z.string().nullable(),
    }),
  })
  .meta({ id: 'Organization' });

/** Polar's `CustomerOrganizationData`: a storefront, the organization and what it sells. */
export const storefrontWireSchema = z
  .object({ organization: organizationWireSchema, products: z.array(customerProductWireSchema) })
  .meta({ id: 'CustomerOrganizationData' });

/** The seller organization as /v1 answers it (Polar's `Organization`). */
export function organizationWire(
  organization: Organization,
): z.input<typeof organizationWireSchema> {
  const { featureSettings } = organization;
  const notificationSettings = notificationSettingsOf(organization);
  const subscriptionSettings = subscriptionSettingsOf(organization);
  return {
    id: organization.id,
    created_at: isoDateTime(organization.createdAt),
    modified_at: isoDateTimeOrNull(organization.updatedAt),
    name: organization.name,
    slug: organization.slug,
    avatar_url: organization.logo ?? null,
    email: organization.email ?? null,
    website: organization.website ?? null,
    socials: organization.socials,
    status: organization.detailsSubmittedAt ? 'active' : 'created',
    details_submitted_at: isoDateTimeOrNull(organization.detailsSubmittedAt),
    feature_settings: {
      issue_funding_enabled: featureSettings.issueFundingEnabled,
      seat_based_pricing_enabled: featureSettings.seatBasedPricingEnabled,
    },
    subscription_settings: {
      allow_multiple_subscriptions: subscriptionSettings.allowMultipleSubscriptions,
      allow_customer_updates: subscriptionSettings.allowCustomerUpdates,
      proration_behavior: subscriptionSettings.prorationBehavior,
      dunning_retry_days: subscriptionSettings.dunningRetryDays,
      dunning_final_status: subscriptionSettings.dunningFinalStatus,
    },
    notification_settings: {
      new_order: notificationSettings.newOrder,
      new_subscription: notificationSettings.newSubscription,
      dunning: notificationSettings.dunning,
    },
    customer_email_settings: customerEmailSettingsWire(customerEmailSettingsOf(organization)),
    invoice_settings: invoiceSettingsWire(organization),
    tax_settings: taxSettingsWire(organization),
  };
}

/** Tollgate's own `tax_settings`, snake_case on the wire. */
function taxSettingsWire(organization: Organization) {
  const settings = taxSettingsOf(organization);
  return {
    mode: settings.mode,
    home_country: settings.homeCountry,
    prices_include_tax: settings.pricesIncludeTax,
  };
}

/**
 * Tollgate's own `invoice_settings`, snake_case on the wire (the address as Polar's `Address`,
 * spelt out here: commerce/customers/schemas.ts does not load in the dashboard).
 */
function invoiceSettingsWire(organization: Organization) {
  const settings = invoiceSettingsOf(organization);
  const { address } = settings;
  return {
    legal_name: settings.legalName,
    address: address && {
      line1: address.line1,
      line2: address.line2,
      postal_code: address.postalCode,
      city: address.city,
      state: address.state,
      country: address.country,
    },
    tax_id: settings.taxId,
    logo_url: settings.logoUrl,
    brand_color: settings.brandColor,
    footer: settings.footer,
  };
}

/** Tollgate's own `customer_email_settings`, snake_case on the wire. */
const customerEmailSettingsWire = (settings: CustomerEmailSettings) => ({
  order_confirmation: settings.orderConfirmation,
  subscription_confirmation: settings.subscriptionConfirmation,
  subscription_cancellation: settings.subscriptionCancellation,
  trial_ending: settings.trialEnding,
  renewal_reminder: settings.renewalReminder,
  payment_recovered: settings.paymentRecovered,
  card_expiring: settings.cardExpiring,
});
export type OrganizationWire = ReturnType<typeof organizationWire>;
