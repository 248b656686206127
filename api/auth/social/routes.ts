import type Router from '@koa/router';
import type { AppDependencies } from '../../dependencies.ts';
import type { AuthSettings } from '../settings.ts';
import { providerAccountRoutes } from './account-routes.ts';
import type { LinkingRules } from './accounts.ts';
import type { SocialProvider } from './provider.ts';
import { configuredProviders } from './providers.ts';
import { socialSignInRoutes } from './sign-in-routes.ts';
import { type TokenCipher, tokenCipher } from './token-cipher.ts';

/** What the social routes share. */
export interface SocialContext {
  dependencies: AppDependencies;
  settings: AuthSettings;
  /** The configured providers by id; any other id is unknown. */
  providers: Map<string, SocialProvider>;
  cipher: TokenCipher;
  rules: LinkingRules;
}

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
