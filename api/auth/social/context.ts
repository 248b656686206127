import type { AuthSettings } from '../../../accounts/settings.ts';
import type { LinkingRules } from '../../../accounts/social/accounts.ts';
import type { SocialProvider } from '../../../accounts/social/provider.ts';
import type { TokenCipher } from '../../../accounts/social/token-cipher.ts';
import type { AppDependencies } from '../../dependencies.ts';

/** What the social routes share. */
export interface SocialContext {
  dependencies: AppDependencies;
  settings: AuthSettings;
  /** The configured providers by id; any other id is unknown. */
  providers: Map<string, SocialProvider>;
  cipher: TokenCipher;
  rules: LinkingRules;
}
