import type { RuntimeConfig } from '../../config/env.ts';
import { discordProvider } from './discord.ts';
import { githubProvider } from './github.ts';
import { googleProvider } from './google.ts';
import { type SocialProvider, socialProviderIds } from './provider.ts';

const factories = { github: githubProvider, google: googleProvider, discord: discordProvider };

/** Where Better Auth's routes live for browsers and providers: <public URL>/api/auth. */
export const authBaseUrl = (config: RuntimeConfig) =>
  `${config.api.publicUrl.replace(/\/+$/, '')}/api/auth`;

/** The providers with a client id and secret configured, by id. */
export function configuredProviders(config: RuntimeConfig): Map<string, SocialProvider> {
  const providers = new Map<string, SocialProvider>();
  for (const id of socialProviderIds) {
    const settings = config.auth.social.providers[id];
    if (!settings) continue;
    const credentials = {
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      redirectUri: `${authBaseUrl(config)}/callback/${id}`,
    };
    providers.set(id, factories[id](credentials, settings.baseUrl));
  }
  return providers;
}
