import type Router from '@koa/router';
import type { AuthSettings } from '../../../accounts/settings.ts';
import { configuredProviders } from '../../../accounts/social/providers.ts';
import { tokenCipher } from '../../../accounts/social/token-cipher.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { providerAccountRoutes } from './account-routes.ts';
import type { SocialContext } from './context.ts';
import { socialSignInRoutes } from './sign-in-routes.ts';

/**
 * Social sign-in with GitHub, Google and Discord after Better Auth's socialProviders, the
 * provider accounts of the signed-in user, and which providers are configured.
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
  // Public, for sign-in pages to offer a button per provider: the ids only, never credentials.
  // Counted per IP by the auth rate limit (providerList).
  router.get('/providers', (ctx) => {
    ctx.body = { providers: [...context.providers.keys()] };
  });
  router.use(providerAccountRoutes(context).routes());
  return router;
}
