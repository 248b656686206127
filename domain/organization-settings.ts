import type { ProrationBehavior } from './subscriptions.ts';

/**
 * A seller organization's settings vocabulary and defaults (browser-safe: the entity and
 * commerce/organizations/schemas.ts import them from here, so the dashboard's forms can too).
 */

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
