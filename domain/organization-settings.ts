import type { NormalisedAddress } from './addresses.ts';
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

/**
 * Which mails the organization's customers receive (Tollgate's own, beside Polar's seller-side
 * `notification_settings`). The portal sign-in link is always sent: the customer asked for it.
 */
export interface CustomerEmailSettings {
  orderConfirmation: boolean;
  subscriptionConfirmation: boolean;
  subscriptionCancellation: boolean;
  trialEnding: boolean;
  renewalReminder: boolean;
  paymentRecovered: boolean;
  cardExpiring: boolean;
}

export const defaultCustomerEmailSettings = (): CustomerEmailSettings => ({
  orderConfirmation: true,
  subscriptionConfirmation: true,
  subscriptionCancellation: true,
  trialEnding: true,
  renewalReminder: true,
  paymentRecovered: true,
  cardExpiring: true,
});

/** The organization's customer mail settings, with the defaults of keys added since it saved them. */
export const customerEmailSettingsOf = (organization: {
  customerEmailSettings: Partial<CustomerEmailSettings>;
}): CustomerEmailSettings => ({
  ...defaultCustomerEmailSettings(),
  ...organization.customerEmailSettings,
});

/** Polar's seller-side `notification_settings`: the mails the organization's team receives. */
export interface NotificationSettings {
  newOrder: boolean;
  newSubscription: boolean;
  /** Tollgate's own: owners and admins are mailed when a renewal's dunning starts and ends. */
  dunning: boolean;
}

export const defaultNotificationSettings = (): NotificationSettings => ({
  newOrder: true,
  newSubscription: true,
  dunning: true,
});

/** The organization's notification settings, with the defaults of keys added since it saved them. */
export const notificationSettingsOf = (organization: {
  notificationSettings: Partial<NotificationSettings>;
}): NotificationSettings => ({
  ...defaultNotificationSettings(),
  ...organization.notificationSettings,
});

/** An invoice's brand colour: `#rrggbb`. */
export const brandColorPattern = /^#[0-9a-fA-F]{6}$/;

/**
 * Tollgate's own: the seller's legal details and branding printed on its invoices and credit
 * notes. The logo is printed only when it is a file the organization uploaded (never fetched).
 */
export interface InvoiceSettings {
  legalName: string | null;
  address: NormalisedAddress | null;
  taxId: string | null;
  logoUrl: string | null;
  brandColor: string | null;
  footer: string | null;
}

export const defaultInvoiceSettings = (): InvoiceSettings => ({
  legalName: null,
  address: null,
  taxId: null,
  logoUrl: null,
  brandColor: null,
  footer: null,
});

/** The organization's invoice settings, with the defaults of keys added since it saved them. */
export const invoiceSettingsOf = (organization: {
  invoiceSettings: Partial<InvoiceSettings>;
}): InvoiceSettings => ({
  ...defaultInvoiceSettings(),
  ...organization.invoiceSettings,
});
