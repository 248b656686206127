import type { EntityManager } from '@mikro-orm/postgresql';
import type { SocialProviderConfig } from '../../config/env.ts';
import { BenefitGrant, CustomerOAuthAccount } from '../../db/entities/index.ts';
import type { CustomerOAuthPlatform } from '../../domain/benefit-types.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';
import { authorizationUrl } from '../../integrations/oauth/account-links.ts';

/** How long a customer has to come back from the provider's consent screen. */
const linkLifetimeMs = 15 * 60 * 1000;

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
  const state = signState(secret, { ...link, expiresAt: Date.now() + linkLifetimeMs });
  return authorizationUrl(provider, link.platform, callbackUrl, state);
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
