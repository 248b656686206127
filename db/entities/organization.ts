import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';

export const socialPlatforms = [
  'x',
  'github',
  'facebook',
  'instagram',
  'youtube',
  'tiktok',
  'linkedin',
  'other',
] as const;
export type SocialPlatform = (typeof socialPlatforms)[number];

export const prorationBehaviors = ['invoice', 'prorate'] as const;
export type ProrationBehavior = (typeof prorationBehaviors)[number];

export interface OrganizationSocial {
  platform: SocialPlatform;
  url: string;
}

export interface FeatureSettings {
  issueFundingEnabled: boolean;
  seatBasedPricingEnabled: boolean;
}

/** Where a subscription ends up when the last dunning retry failed too. */
export const dunningFinalStatuses = ['unpaid', 'canceled'] as const;
export type DunningFinalStatus = (typeof dunningFinalStatuses)[number];

export interface SubscriptionSettings {
  allowMultipleSubscriptions: boolean;
  allowCustomerUpdates: boolean;
  prorationBehavior: ProrationBehavior;
  /** Days after the first failed renewal charge on which it is retried (ascending). */
  dunningRetryDays: number[];
  dunningFinalStatus: DunningFinalStatus;
}

export interface NotificationSettings {
  newOrder: boolean;
  newSubscription: boolean;
}

export const defaultFeatureSettings = (): FeatureSettings => ({
  issueFundingEnabled: false,
  seatBasedPricingEnabled: false,
});

export const defaultSubscriptionSettings = (): SubscriptionSettings => ({
  allowMultipleSubscriptions: false,
  allowCustomerUpdates: true,
  prorationBehavior: 'prorate',
  // As Polar retries: 2, 7, 14 and 21 days after the first failure.
  dunningRetryDays: [2, 7, 14, 21],
  dunningFinalStatus: 'canceled',
});

/** The organization's subscription settings, with the defaults of keys added since it saved them. */
export const subscriptionSettingsOf = (organization: {
  subscriptionSettings: Partial<SubscriptionSettings>;
}): SubscriptionSettings => ({
  ...defaultSubscriptionSettings(),
  ...organization.subscriptionSettings,
});

export const defaultNotificationSettings = (): NotificationSettings => ({
  newOrder: true,
  newSubscription: true,
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
    /** The last order invoice number handed out (`<SLUG>-0001`, …), incremented in the order's transaction. */
    lastInvoiceNumber: p.integer().default(0),
    ...timestampColumns(),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
