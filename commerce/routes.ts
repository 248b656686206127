import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDependencies } from '../api/dependencies.ts';
import { routePrefixes, routesFor } from '../api/route-prefixes.ts';
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

/** Every area of the commerce API, in the order their routes are matched. */
const areas = [
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
] satisfies ((dependencies: AppDependencies) => Router)[];

/** Every area's router behind one middleware that identifies the caller. */
function areaRoutes(identify: Middleware, areaRouters: Router[]): Router {
  const router = new Router();
  router.use(identify);
  for (const area of areaRouters) router.use(area.routes());
  return router;
}

/**
 * The commerce API under /v1, Polar-compatible: every area's router behind one middleware that
 * identifies the caller (organization token or dashboard session). This is the route table
 * (OpenAPI, the adversarial suite); the app serves it through `commerceRouting`.
 */
export function commerceRoutes(dependencies: AppDependencies): Router {
  return areaRoutes(
    identifyCaller(dependencies),
    areas.map((area) => area(dependencies)),
  );
}

const portalPrefix = '/v1/customer-portal';
// Routes ignore letter case.
const isPortalPath = /^\/v1\/customer-portal/i;

/**
 * The routes of `commerceRoutes` as the app serves them: the customer portal's areas (all under
 * /v1/customer-portal) in a router of their own, chosen by one prefix check, so that a portal
 * request is tested against the portal's routes only and a seller's against the others. No
 * other area may have a route a portal path can match (checked here): the split answers
 * exactly as the one table does.
 */
export function commerceRouting(dependencies: AppDependencies): Middleware {
  const identify = identifyCaller(dependencies);
  const areaRouters = areas.map((area) => area(dependencies));
  const inPortal = (router: Router) =>
    (router.opts.prefix ?? '').toLowerCase().startsWith(portalPrefix);
  const portal = areaRoutes(identify, areaRouters.filter(inPortal));
  const others = areaRoutes(
    identify,
    areaRouters.filter((router) => !inPortal(router)),
  );
  for (const prefix of routePrefixes(others)) {
    if (portalPrefix.startsWith(prefix) || prefix.startsWith(portalPrefix)) {
      throw new Error(`A route outside the portal's areas may match its paths: ${prefix}…`);
    }
  }
  const portalRoutes = routesFor(portal);
  const otherRoutes = routesFor(others);
  return (ctx, next) =>
    isPortalPath.test(ctx.path) ? portalRoutes(ctx, next) : otherRoutes(ctx, next);
}
