import Router from '@koa/router';
import type { AuthSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../dependencies.ts';
import { banRoutes } from './admin/ban-routes.ts';
import { adminRouteContext } from './admin/context.ts';
import { impersonationRoutes } from './admin/impersonation-routes.ts';
import { permissionRoutes } from './admin/permission-routes.ts';
import { userSessionRoutes } from './admin/session-routes.ts';
import { userRoutes } from './admin/user-routes.ts';

/**
 * Better Auth's admin plugin (1.3.34) under /admin: users, roles, bans, impersonation and other
 * users' sessions, allowed by role (see accounts/admin-permissions.ts). Without a session every
 * route answers 401 with an empty body; a caller whose roles do not grant the action, 403.
 */
export function adminRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router({ prefix: '/admin' });
  const admin = adminRouteContext(orm, settings);
  userRoutes(router, admin);
  banRoutes(router, admin);
  impersonationRoutes(router, admin);
  userSessionRoutes(router, admin);
  permissionRoutes(router, admin);
  return router;
}
