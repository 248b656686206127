import Router from '@koa/router';
import type { AppDependencies } from '../dependencies.ts';
import { emailPasswordRoutes } from './email-password-routes.ts';
import { originGuard } from './origins.ts';
import { authSettings } from './settings.ts';

/** Everything under /api/auth that Better Auth's client calls. */
export function authRoutes(dependencies: AppDependencies): Router {
  const settings = authSettings(dependencies.config);
  const router = new Router({ prefix: '/api/auth' });
  router.use(originGuard(settings.trustedOrigins));
  const emailPassword = emailPasswordRoutes(dependencies, settings);
  router.use(emailPassword.routes(), emailPassword.allowedMethods({ throw: true }));
  return router;
}
