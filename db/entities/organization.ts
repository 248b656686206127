import { defineEntity, p } from '@mikro-orm/core';
import {
  type CustomerEmailSettings,
  defaultCustomerEmailSettings,
  defaultNotificationSettings,
  defaultSubscriptionSettings,
  type InvoiceSettings,
  type NotificationSettings,
  type SocialPlatform,
  type SubscriptionSettings,
} from '../../domain/organization-settings.ts';
import { defaultTaxSettings, type TaxSettings } from '../../domain/tax.ts';
import { idColumn, timestampColumns } from './columns.ts';

export {
  type CustomerEmailSettings,
  customerEmailSettingsOf,
  type DunningFinalStatus,
  defaultCustomerEmailSettings,
  defaultNotificationSettings,
  defaultSubscriptionSettings,
  dunningFinalStatuses,
  type InvoiceSettings,
  invoiceSettingsOf,
  type NotificationSettings,
  notificationSettingsOf,
  type SocialPlatform,
  type SubscriptionSettings,
  socialPlatforms,
  subscriptionSettingsOf,
} from '../../domain/organization-settings.ts';
export { type ProrationBehavior, prorationBehaviors } from '../../domain/subscriptions.ts';

export interface OrganizationSocial {
  platform: SocialPlatform;
  url: string;
}

export interface FeatureSettings {
  issueFundingEnabled: boolean;
  seatBasedPricingEnabled: boolean;
}

export const defaultFeatureSettings = (): FeatureSettings => ({
  issueFundingEnabled: false,
  seatBasedPricingEnabled: false,
});

/**
 * An organization: the team of people behind a seller, and the seller itself on the commerce
 * side (one row, two views: camelCase under /api/auth, snake_case under /v1, where `logo` is
 * `avatar_url`).
 */
const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: idColumn(),
    name: p.string(),
    slug: p.string().unique(),
    logo: p.text().nullable(),
    /** JSON text, as Better Auth stores it; answered as an object. */
    metadata: p.text().nullable(),
    email: p.string().nullable(),
    website: p.string().nullable(),
    socials: p
      .json<OrganizationSocial[]>()
      .defaultRaw(`'[]'`)
      .onCreate(() => []),
    detailsSubmittedAt: p.datetime().nullable(),
    /** The seller's answers about their business (Polar's `details`), kept as sent. */
    details: p.json<Record<string, unknown>>().nullable(),
    featureSettings: p
      .json<FeatureSettings>()
      .defaultRaw(`'${JSON.stringify(defaultFeatureSettings())}'`)
      .onCreate(defaultFeatureSettings),
    subscriptionSettings: p
      .json<SubscriptionSettings>()
      .defaultRaw(`'${JSON.stringify(defaultSubscriptionSettings())}'`)
      .onCreate(defaultSubscriptionSettings),
    notificationSettings: p
      .json<NotificationSettings>()
      .defaultRaw(`'${JSON.stringify(defaultNotificationSettings())}'`)
      .onCreate(defaultNotificationSettings),
    /** The mails its customers receive (domain/organization-settings.ts). */
    customerEmailSettings: p
      .json<CustomerEmailSettings>()
      .defaultRaw(`'${JSON.stringify(defaultCustomerEmailSettings())}'`)
      .onCreate(defaultCustomerEmailSettings),
    /** Legal details and branding of its invoices and credit notes (domain/organization-settings.ts). */
    invoiceSettings: p
      .json<Partial<InvoiceSettings>>()
      .defaultRaw(`'{}'`)
      .onCreate(() => ({})),
    /** How it taxes its sales (domain/tax.ts). */
    taxSettings: p
      .json<Partial<TaxSettings>>()
      .defaultRaw(`'${JSON.stringify(defaultTaxSettings())}'`)
      .onCreate(defaultTaxSettings),
    /** The last order invoice number handed out (`<SLUG>-0001`, …), incremented in the order's transaction. */
    lastInvoiceNumber: p.integer().default(0),
    /** The last refund credit note number handed out (`<SLUG>-CN-0001`, …), as invoice numbers are. */
    lastCreditNoteNumber: p.integer().default(0),
    ...timestampColumns(),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
