import type { EntityManager } from '@mikro-orm/postgresql';
import type { SocialProviderConfig } from '../../config/env.ts';
import type { CustomerOAuthPlatform } from '../../db/entities/customer-access.ts';
import { BenefitGrant, CustomerOAuthAccount } from '../../db/entities/index.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';

/** How long a customer has to come back from the provider's consent screen. */
const linkLifetimeMs = 15 * 60 * 1000;

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

/** What the `state` of a link carries, signed: who links which platform, and where to go back. */
export interface LinkState {
  customerId: string;
  platform: CustomerOAuthPlatform;
  returnTo: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const linkStatePurpose = 'tollgate customer oauth link';

const signState = (secret: string, state: LinkState): string =>
  signToken(secret, linkStatePurpose, state);

/** The state a callback carries, or null when it is forged, malformed or expired. */
export function readLinkState(secret: string, token: string, now = Date.now()): LinkState | null {
  const state = readSignedToken(secret, linkStatePurpose, token) as LinkState | null;
  return state && state.expiresAt > now ? state : null;
}

/** Where to send the customer to link an account: the platform's consent screen. */
export function linkAuthorizationUrl(
  provider: SocialProviderConfig,
  secret: string,
  callbackUrl: string,
  link: Omit<LinkState, 'expiresAt'>,
): string {
  const platform = platforms[link.platform];
  const url = new URL(platform.authorize(provider.baseUrl));
  url.search = new URLSearchParams({
    client_id: provider.clientId,
    redirect_uri: callbackUrl,
    response_type: 'code',
    scope: platform.scope,
    state: signState(secret, { ...link, expiresAt: Date.now() + linkLifetimeMs }),
  }).toString();
  return url.href;
}

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

/**
 * Stores the customer's account on the platform (replacing a previous one) and answers the
 * grants that wait for it or used the previous one: their workflows try them again.
 */
export async function saveLinkedAccount(
  em: EntityManager,
  customerId: string,
  platform: CustomerOAuthPlatform,
  account: { accountId: string; accountUsername: string | null; accessToken: string },
) {
  return em.transactional(async (tx) => {
    const existing = await tx.findOne(CustomerOAuthAccount, { customer: customerId, platform });
    if (existing) Object.assign(existing, account);
    else tx.create(CustomerOAuthAccount, { customer: customerId, platform, ...account });
    const benefitType = platform === 'discord' ? 'discord' : 'github_repository';
    return tx.find(
      BenefitGrant,
      { customer: customerId, revokedAt: null, benefit: { type: benefitType, deletedAt: null } },
      { populate: ['benefit'] },
    );
  });
}
