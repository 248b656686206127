import Router from '@koa/router';
import type { AppDependencies } from '../api/dependencies.ts';
import { accessTokenRoutes } from './access-tokens/routes.ts';
import { benefitConnectionRoutes } from './benefit-connections/routes.ts';
import { customerPortalGrantRoutes } from './benefit-grants/routes.ts';
import { benefitGrantRoutes, benefitRoutes } from './benefits/routes.ts';
import { checkoutLinkRoutes } from './checkout-links/routes.ts';
import { checkoutRoutes } from './checkouts/routes.ts';
import { customFieldRoutes } from './custom-fields/routes.ts';
import { customerMeterRoutes, customerPortalMeterRoutes } from './customer-meters/routes.ts';
import { customerPortalRoutes } from './customer-portal/routes.ts';
import { customerPortalSignInRoutes, customerSessionRoutes } from './customer-sessions/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { discountRoutes } from './discounts/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { fileRoutes } from './files/routes.ts';
import { identifyCaller } from './http/caller.ts';
import { customerPortalLicenseKeyRoutes, licenseKeyRoutes } from './license-keys/routes.ts';
import { meterRoutes } from './meters/routes.ts';
import { metricRoutes } from './metrics/routes.ts';
import { customerPortalOrderRoutes, orderRoutes } from './orders/routes.ts';
import { customerPortalOrganizationRoutes, organizationRoutes } from './organizations/routes.ts';
import { paymentRoutes, stripeWebhookRoutes } from './payments/routes.ts';
import { productRoutes } from './products/routes.ts';
import { refundRoutes } from './refunds/routes.ts';
import { customerPortalSubscriptionRoutes, subscriptionRoutes } from './subscriptions/routes.ts';
import { taxRateRoutes } from './tax-rates/routes.ts';
import { taxReportRoutes } from './tax-report/routes.ts';
import { testClockRoutes } from './test-clocks/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { workflowRoutes } from './workflows/routes.ts';

/**
 * The commerce API under /v1, Polar-compatible: every area's router behind one middleware that
 * identifies the caller (organization token or dashboard session).
 */
export function commerceRoutes(dependencies: AppDependencies): Router {
  const router = new Router();
  router.use(identifyCaller(dependencies));
  for (const area of [
    organizationRoutes,
    customerPortalOrganizationRoutes,
    fileRoutes,
    accessTokenRoutes,
    customerRoutes,
    customerSessionRoutes,
    customerPortalSignInRoutes,
    customerPortalRoutes,
    productRoutes,
    meterRoutes,
    eventRoutes,
    customerMeterRoutes,
    customerPortalMeterRoutes,
    checkoutLinkRoutes,
    checkoutRoutes,
    orderRoutes,
    customerPortalOrderRoutes,
    refundRoutes,
    subscriptionRoutes,
    customerPortalSubscriptionRoutes,
    testClockRoutes,
    paymentRoutes,
    stripeWebhookRoutes,
    benefitRoutes,
    benefitGrantRoutes,
    benefitConnectionRoutes,
    customerPortalGrantRoutes,
    licenseKeyRoutes,
    customerPortalLicenseKeyRoutes,
    customFieldRoutes,
    taxRateRoutes,
    taxReportRoutes,
    discountRoutes,
    webhookRoutes,
    metricRoutes,
    workflowRoutes,
  ]) {
    router.use(area(dependencies).routes());
  }
  return router;
}
