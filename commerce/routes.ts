import Router from '@koa/router';
import type { AppDependencies } from '../api/dependencies.ts';
import { accessTokenRoutes } from './access-tokens/routes.ts';
import { identifyCaller } from './http/caller.ts';
import { organizationRoutes } from './organizations/routes.ts';

/**
 * The commerce API under /v1, Polar-compatible: every area's router behind one middleware that
 * identifies the caller (organization token or dashboard session).
 */
export function commerceRoutes(dependencies: AppDependencies): Router {
  const router = new Router();
  router.use(identifyCaller(dependencies));
  for (const area of [organizationRoutes, accessTokenRoutes]) {
    router.use(area(dependencies).routes());
  }
  return router;
}
