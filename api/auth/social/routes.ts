import type Router from '@koa/router';
import type { AuthSettings } from '../../../accounts/settings.ts';
import { configuredProviders } from '../../../accounts/social/providers.ts';
import { tokenCipher } from '../../../accounts/social/token-cipher.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { providerAccountRoutes } from './account-routes.ts';
import type { SocialContext } from './context.ts';
import { socialSignInRoutes } from './sign-in-routes.ts';

/**
 * Social sign-in with GitHub, Google and Discord after Better Auth's socialProviders, and the
 * provider accounts of the signed-in user.
 */
export function socialRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const context: SocialContext = {
    dependencies,
    settings,
    providers: configuredProviders(dependencies.config),
    cipher: tokenCipher(settings.secret),
    rules: dependencies.config.auth.social,
  };
  const router = socialSignInRoutes(context);
  router.use(providerAccountRoutes(context).routes());
  return router;
}
