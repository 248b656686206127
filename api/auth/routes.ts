import Router from '@koa/router';
import { type AuthSettings, authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../dependencies.ts';
import { captchaCheck } from '../middleware/captcha.ts';
import { accountRoutes } from './account-routes.ts';
import { adminRoutes } from './admin-routes.ts';
import { apiKeyRoutes } from './api-key-routes.ts';
import { emailPasswordRoutes } from './email-password-routes.ts';
import { invitationRoutes } from './organization/invitation-routes.ts';
import { memberRoutes } from './organization/member-routes.ts';
import { organizationRoutes } from './organization/organization-routes.ts';
import { teamRoutes } from './organization/team-routes.ts';
import { originGuard } from './origins.ts';
import { pageRoutes } from './page-routes.ts';
import { authRateLimit } from './rate-limit.ts';
import { sessionRoutes } from './session-routes.ts';
import { socialRoutes } from './social/routes.ts';
import { subscriptionRoutes } from './subscription-routes.ts';

/** One router per area of /api/auth; each is mounted below the origin guard. */
const areas: ((dependencies: AppDependencies, settings: AuthSettings) => Router)[] = [
  pageRoutes,
  emailPasswordRoutes,
  sessionRoutes,
  adminRoutes,
  accountRoutes,
  apiKeyRoutes,
  socialRoutes,
  teamRoutes,
  organizationRoutes,
  memberRoutes,
  invitationRoutes,
  subscriptionRoutes,
];

/**
 * What a configured captcha guards: Better Auth's plugin's defaults (sign-up, sign-in and the
 * reset request), and the reset request's other path, which would otherwise go around it.
 */
const captchaPaths = [
  '/sign-up/email',
  '/sign-in/email',
  '/forget-password',
  '/request-password-reset',
];

/** Everything under /api/auth that Better Auth's client calls. */
export function authRoutes(dependencies: AppDependencies): Router {
  const settings = authSettings(dependencies.config);
  const router = new Router({ prefix: '/api/auth' });
  // Counted before anything else, as Better Auth does: a blocked request costs one statement.
  router.use(authRateLimit(dependencies, settings));
  router.use(originGuard(settings.trustedOrigins));
  const { captcha } = dependencies.config.auth;
  if (captcha) router.use(captchaPaths, captchaCheck(captcha, dependencies.logger));
  for (const area of areas) router.use(area(dependencies, settings).routes());
  return router;
}
