import { accessTokenOperations } from './access-tokens/operations.ts';
import { benefitConnectionOperations } from './benefit-connections/operations.ts';
import { customerPortalGrantOperations } from './benefit-grants/operations.ts';
import { benefitOperations } from './benefits/operations.ts';
import { checkoutLinkOperations } from './checkout-links/operations.ts';
import { checkoutOperations } from './checkouts/operations.ts';
import { customFieldOperations } from './custom-fields/operations.ts';
import {
  customerMeterOperations,
  customerPortalMeterOperations,
} from './customer-meters/operations.ts';
import { customerPortalOperations } from './customer-portal/operations.ts';
import {
  customerPortalSignInOperations,
  customerSessionOperations,
} from './customer-sessions/operations.ts';
import { customerOperations } from './customers/operations.ts';
import { discountOperations } from './discounts/operations.ts';
import { eventOperations } from './events/operations.ts';
import { fileOperations } from './files/operations.ts';
import type { Operation } from './http/openapi.ts';
import {
  customerPortalLicenseKeyOperations,
  licenseKeyOperations,
} from './license-keys/operations.ts';
import { meterOperations } from './meters/operations.ts';
import { metricOperations } from './metrics/operations.ts';
import { customerPortalOrderOperations, orderOperations } from './orders/operations.ts';
import { organizationOperations, storefrontOperations } from './organizations/operations.ts';
import { paymentOperations, stripeWebhookOperations } from './payments/operations.ts';
import { productOperations } from './products/operations.ts';
import { refundOperations } from './refunds/operations.ts';
import {
  customerPortalSubscriptionOperations,
  subscriptionOperations,
} from './subscriptions/operations.ts';
import { taxRateOperations } from './tax-rates/operations.ts';
import { taxReportOperations } from './tax-report/operations.ts';
import { testClockOperations } from './test-clocks/operations.ts';
import { webhookOperations } from './webhooks/operations.ts';
import { workflowOperations } from './workflows/operations.ts';

/**
 * Every documented /v1 operation, gathered from each area's operations.ts: the OpenAPI
 * document at /v1/openapi.json is built from this list, and commerce/http/openapi.test.ts
 * checks it against the routes the app registers.
 */
export const commerceOperations: readonly Operation[] = [
  ...organizationOperations,
  ...storefrontOperations,
  ...accessTokenOperations,
  ...fileOperations,
  ...customerOperations,
  ...productOperations,
  ...benefitOperations,
  ...customFieldOperations,
  ...taxRateOperations,
  ...taxReportOperations,
  ...discountOperations,
  ...checkoutLinkOperations,
  ...checkoutOperations,
  ...meterOperations,
  ...eventOperations,
  ...metricOperations,
  ...benefitConnectionOperations,
  ...customerPortalSignInOperations,
  ...customerSessionOperations,
  ...customerPortalLicenseKeyOperations,
  ...licenseKeyOperations,
  ...paymentOperations,
  ...stripeWebhookOperations,
  ...refundOperations,
  ...testClockOperations,
  ...webhookOperations,
  ...customerMeterOperations,
  ...customerPortalMeterOperations,
  ...workflowOperations,
  ...orderOperations,
  ...customerPortalOrderOperations,
  ...customerPortalOperations,
  ...customerPortalGrantOperations,
  ...subscriptionOperations,
  ...customerPortalSubscriptionOperations,
];
