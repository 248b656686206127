import Router from '@koa/router';
import type { AppDependencies } from '../dependencies.ts';
import { emailPasswordRoutes } from './email-password-routes.ts';
import { originGuard } from './origins.ts';
import { sessionRoutes } from './session-routes.ts';
import { type AuthSettings, authSettings } from './settings.ts';

/** One router per area of /api/auth; each is mounted below the origin guard. */
const areas: ((dependencies: AppDependencies, settings: AuthSettings) => Router)[] = [
  emailPasswordRoutes,
  sessionRoutes,
];

/** Everything under /api/auth that Better Auth's client calls. */
export function authRoutes(dependencies: AppDependencies): Router {
  const settings = authSettings(dependencies.config);
  const router = new Router({ prefix: '/api/auth' });
  router.use(originGuard(settings.trustedOrigins));
  for (const area of areas) {
    const areaRouter = area(dependencies, settings);
    router.use(areaRouter.routes(), areaRouter.allowedMethods({ throw: true }));
  }
  return router;
}
