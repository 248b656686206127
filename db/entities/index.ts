import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { Benefit, BenefitGrant } from './benefit.ts';
import { Checkout, DiscountRedemption, ProcessedStripeEvent } from './checkout.ts';
import { CheckoutLink, CheckoutLinkProduct } from './checkout-link.ts';
import { CustomField } from './custom-field.ts';
import { Customer } from './customer.ts';
import { CustomerOAuthAccount, CustomerSession, CustomerSignInLink } from './customer-access.ts';
import { CustomerBalanceEntry } from './customer-balance.ts';
import { Discount, DiscountProduct } from './discount.ts';
import { Downloadable } from './downloadable.ts';
import { Invitation } from './invitation.ts';
import { LicenseKey, LicenseKeyActivation } from './license-key.ts';
import { Member } from './member.ts';
import { CustomerMeter, Meter } from './meter.ts';
import { Order, OrderItem, Payment } from './order.ts';
import { Organization } from './organization.ts';
import { OrganizationAccessToken } from './organization-access-token.ts';
import { OrganizationRole } from './organization-role.ts';
import { OutboxEvent } from './outbox-event.ts';
import {
  Product,
  ProductBenefit,
  ProductCustomField,
  ProductMedia,
  ProductPrice,
} from './product.ts';
import { RateLimit } from './rate-limit.ts';
import { Refund } from './refund.ts';
import { Session } from './session.ts';
import { StoredFile } from './stored-file.ts';
import { Subscription, SubscriptionPrice } from './subscription.ts';
import { TaxRate } from './tax-rate.ts';
import { Team, TeamMember } from './team.ts';
import { TestClock } from './test-clock.ts';
import { MeterBilledPeriod, MeterUsageHour, UsageEvent } from './usage-event.ts';
import { User } from './user.ts';
import { Verification } from './verification.ts';
import { WebhookDelivery, WebhookEndpoint, WebhookEvent } from './webhook.ts';

export {
  Account,
  ApiKey,
  Benefit,
  BenefitGrant,
  Checkout,
  CheckoutLink,
  CheckoutLinkProduct,
  Customer,
  CustomerBalanceEntry,
  CustomerMeter,
  CustomerOAuthAccount,
  CustomerSession,
  CustomerSignInLink,
  CustomField,
  Discount,
  DiscountProduct,
  DiscountRedemption,
  Downloadable,
  Invitation,
  LicenseKey,
  LicenseKeyActivation,
  Member,
  Meter,
  MeterBilledPeriod,
  MeterUsageHour,
  Order,
  OrderItem,
  Organization,
  OrganizationAccessToken,
  OrganizationRole,
  OutboxEvent,
  Payment,
  ProcessedStripeEvent,
  Product,
  ProductBenefit,
  ProductCustomField,
  ProductMedia,
  ProductPrice,
  RateLimit,
  Refund,
  Session,
  StoredFile,
  Subscription,
  SubscriptionPrice,
  TaxRate,
  Team,
  TeamMember,
  TestClock,
  UsageEvent,
  User,
  Verification,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
};

/** Every entity the ORM knows; registered explicitly, no folder scanning. */
export const entities = [
  User,
  Session,
  Account,
  Verification,
  ApiKey,
  RateLimit,
  Refund,
  Organization,
  Member,
  Team,
  TeamMember,
  TestClock,
  Invitation,
  OrganizationAccessToken,
  OrganizationRole,
  OutboxEvent,
  StoredFile,
  CustomField,
  Meter,
  Customer,
  CustomerMeter,
  CustomerBalanceEntry,
  Benefit,
  BenefitGrant,
  Product,
  ProductPrice,
  ProductBenefit,
  ProductMedia,
  ProductCustomField,
  Discount,
  DiscountProduct,
  CheckoutLink,
  CheckoutLinkProduct,
  UsageEvent,
  MeterUsageHour,
  MeterBilledPeriod,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDelivery,
  Subscription,
  SubscriptionPrice,
  Order,
  OrderItem,
  Payment,
  Checkout,
  DiscountRedemption,
  ProcessedStripeEvent,
  LicenseKey,
  LicenseKeyActivation,
  Downloadable,
  CustomerOAuthAccount,
  CustomerSession,
  CustomerSignInLink,
  TaxRate,
];
