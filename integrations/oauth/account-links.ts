import type { SocialProviderConfig } from '../../config/env.ts';
import type { CustomerOAuthPlatform } from '../../domain/benefit-types.ts';

/**
 * The hosts of each platform's OAuth flow. A configured base URL (the local provider of tests
 * and development) stands in for all of them. Discord's `guilds.join` lets the bot add the
 * customer to a guild with their token.
 */
const platforms = {
  discord: {
    authorize: (base = 'https://discord.com') => `${base}/oauth2/authorize`,
    token: (base = 'https://discord.com') => `${base}/api/oauth2/token`,
    profile: (base = 'https://discord.com') => `${base}/api/users/@me`,
    scope: 'identify guilds.join',
  },
  github: {
    authorize: (base = 'https://github.com') => `${base}/login/oauth/authorize`,
    token: (base = 'https://github.com') => `${base}/login/oauth/access_token`,
    profile: (base = 'https://api.github.com') => `${base}/user`,
    scope: 'read:user',
  },
} as const;

/** The platform's consent screen for linking an account, coming back to `callbackUrl` with `state`. */
export function authorizationUrl(
  provider: SocialProviderConfig,
  platformName: CustomerOAuthPlatform,
  callbackUrl: string,
  state: string,
): string {
  const platform = platforms[platformName];
  const url = new URL(platform.authorize(provider.baseUrl));
  url.search = new URLSearchParams({
    client_id: provider.clientId,
    redirect_uri: callbackUrl,
    response_type: 'code',
    scope: platform.scope,
    state,
  }).toString();
  return url.href;
}

/** The platform refused the link (or the customer did): the reason goes back to the portal. */
export class LinkFailed extends Error {
  override name = 'LinkFailed';
}

/** Exchanges the callback's code for the customer's token, and reads whose account it is. */
export async function fetchLinkedAccount(
  provider: SocialProviderConfig,
  platformName: CustomerOAuthPlatform,
  code: string,
  callbackUrl: string,
) {
  const platform = platforms[platformName];
  const tokenResponse = await fetch(platform.token(provider.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackUrl,
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const tokens = (await tokenResponse.json()) as { access_token?: string };
  if (!tokenResponse.ok || !tokens.access_token) {
    throw new LinkFailed(`The ${platformName} authorization failed (${tokenResponse.status}).`);
  }
  const profileResponse = await fetch(platform.profile(provider.baseUrl), {
    headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' },
    signal: AbortSignal.timeout(15_000),
  });
  if (!profileResponse.ok) {
    throw new LinkFailed(
      `The ${platformName} account could not be read (${profileResponse.status}).`,
    );
  }
  const profile = (await profileResponse.json()) as {
    id: string | number;
    username?: string;
    login?: string;
  };
  return {
    accountId: String(profile.id),
    accountUsername: profile.login ?? profile.username ?? null,
    accessToken: tokens.access_token,
  };
}
