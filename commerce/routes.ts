import Router from '@koa/router';
import type { AppDependencies } from '../api/dependencies.ts';
import { accessTokenRoutes } from './access-tokens/routes.ts';
import { benefitGrantRoutes, benefitRoutes } from './benefits/routes.ts';
import { checkoutLinkRoutes } from './checkout-links/routes.ts';
import { customFieldRoutes } from './custom-fields/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { discountRoutes } from './discounts/routes.ts';
import { fileRoutes } from './files/routes.ts';
import { identifyCaller } from './http/caller.ts';
import { meterRoutes } from './meters/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { productRoutes } from './products/routes.ts';

/**
 * The commerce API under /v1, Polar-compatible: every area's router behind one middleware that
 * identifies the caller (organization token or dashboard session).
 */
export function commerceRoutes(dependencies: AppDependencies): Router {
  const router = new Router();
  router.use(identifyCaller(dependencies));
  for (const area of [
    organizationRoutes,
    fileRoutes,
    accessTokenRoutes,
    customerRoutes,
    productRoutes,
    meterRoutes,
    checkoutLinkRoutes,
    benefitRoutes,
    benefitGrantRoutes,
    customFieldRoutes,
    discountRoutes,
  ]) {
    router.use(area(dependencies).routes());
  }
  return router;
}
