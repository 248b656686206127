import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { revokeTokensOfCreator } from '../../commerce/access-tokens/service.ts';
import { Account, ApiKey, Session, User } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { authError } from '../errors.ts';
import { createSession, isBanned, type NewSession } from '../sessions.ts';
import type { AuthSettings } from '../settings.ts';
import { createUser } from '../users.ts';
import type { ProviderTokens, ProviderUser, SocialProvider, SocialProviderId } from './provider.ts';
import type { TokenCipher } from './token-cipher.ts';

/** Section 5's linking rules, with Better Auth's defaults: no trusted provider, same email. */
export interface LinkingRules {
  /** Providers whose accounts link to an existing user even when they call the email unverified. */
  trustedProviders: readonly SocialProviderId[];
  /** Let a signed-in user link a provider account whose email differs from theirs. */
  allowDifferentEmails: boolean;
}

/** The account columns a provider's tokens fill, encrypted; tokens it did not send stay out. */
export function accountTokenColumns(tokens: Partial<ProviderTokens>, cipher: TokenCipher) {
  const columns: Partial<
    Pick<
      Account,
      | 'accessToken'
      | 'refreshToken'
      | 'idToken'
      | 'accessTokenExpiresAt'
      | 'refreshTokenExpiresAt'
      | 'scope'
    >
  > = {};
  if (tokens.accessToken) columns.accessToken = cipher.encrypt(tokens.accessToken);
  if (tokens.refreshToken) columns.refreshToken = cipher.encrypt(tokens.refreshToken);
  if (tokens.idToken) columns.idToken = cipher.encrypt(tokens.idToken);
  if (tokens.accessTokenExpiresAt) columns.accessTokenExpiresAt = tokens.accessTokenExpiresAt;
  if (tokens.refreshTokenExpiresAt) columns.refreshTokenExpiresAt = tokens.refreshTokenExpiresAt;
  if (tokens.scopes?.length) columns.scope = tokens.scopes.join(',');
  return columns;
}

export interface ProviderSignIn {
  providerId: SocialProviderId;
  /** The provider's user, with the email it must have for a sign-in. */
  profile: ProviderUser & { email: string };
  /** The name a new user gets when the provider gives none. */
  fallbackName: string;
  tokens: Partial<ProviderTokens>;
  request: { ipAddress: string | null; userAgent: string | null };
}

/** Better Auth's reasons, as its messages (the callback turns spaces into underscores). */
export type SignInRefusal =
  | 'account not linked'
  | 'unable to link account'
  | 'unable to create user'
  | 'banned';

export type SignInOutcome =
  | { user: User; session: NewSession; isNewUser: boolean }
  | { refusal: SignInRefusal };

/**
 * Signs in with a provider account, as Better Auth does: the account's user if it is linked;
 * else the user with the same email, linking the account when the provider is trusted or says
 * the email is verified; else a new user. The account, any new user and the session are
 * written together or not at all.
 */
export async function signInWithProviderAccount(
  orm: Orm,
  settings: AuthSettings,
  rules: LinkingRules,
  cipher: TokenCipher,
  signIn: ProviderSignIn,
): Promise<SignInOutcome> {
  const { providerId, profile, tokens } = signIn;
  const accountId = String(profile.id);
  const email = profile.email.toLowerCase();
  const tokenColumns = accountTokenColumns(tokens, cipher);
  let failure: SignInRefusal = 'unable to create user';
  try {
    return await orm.em.transactional(async (em): Promise<SignInOutcome> => {
      const startSession = (user: User, isNewUser: boolean) => {
        // A provider that vouches for the email verifies it for the user too.
        if (profile.emailVerified && user.email === email) user.emailVerified = true;
        const session = createSession(em, settings, user, { rememberMe: true, ...signIn.request });
        return { user, session, isNewUser };
      };

      const linked = await em.findOne(Account, { providerId, accountId }, { populate: ['user'] });
      if (linked) {
        if (isBanned(linked.user)) return { refusal: 'banned' };
        em.assign(linked, tokenColumns);
        return startSession(linked.user, false);
      }

      const existing = await em.findOne(User, { email });
      if (existing) {
        if (isBanned(existing)) return { refusal: 'banned' };
        // Anyone can open a provider account with someone else's address: only a trusted
        // provider's or a verified email may take over the existing user.
        if (!rules.trustedProviders.includes(providerId) && !profile.emailVerified) {
          return { refusal: 'account not linked' };
        }
        failure = 'unable to link account';
        if (profile.emailVerified && !existing.emailVerified) {
          await dropUnprovenAccess(em, existing);
        }
        em.create(Account, { user: existing, providerId, accountId, ...tokenColumns });
        return startSession(existing, false);
      }

      const user = createUser(em, {
        email,
        name: profile.name || signIn.fallbackName,
        image: profile.image ?? null,
        emailVerified: profile.emailVerified,
      });
      em.create(Account, { user, providerId, accountId, ...tokenColumns });
      return startSession(user, true);
    });
  } catch (error) {
    // A concurrent sign-in created the same user or account first.
    if (error instanceof UniqueConstraintViolationException) return { refusal: failure };
    throw error;
  }
}

/**
 * The provider has just proven the address of a user whose address nobody had proven: whoever
 * made that user may not own the address (account pre-hijacking: an attacker signs up with the
 * victim's email and a password of theirs and waits for the victim to sign in through a
 * provider). Everything the unproven user held stops working: the password, the other provider
 * accounts, the sessions, the API keys and the organization access tokens it created; the address's owner goes on with this provider and
 * can set a password through a reset. A deviation from Better Auth, which keeps them all.
 */
async function dropUnprovenAccess(em: EntityManager, user: User): Promise<void> {
  await em.nativeDelete(Account, { user });
  await em.nativeDelete(Session, { user });
  await em.nativeDelete(ApiKey, { user });
  await revokeTokensOfCreator(em, user.id);
}

/** Better Auth's callback errors for a link that may not happen. */
export type LinkRefusal =
  | 'unable_to_link_account'
  | "email_doesn't_match"
  | 'account_already_linked_to_different_user';

/**
 * Links a provider account to the signed-in user who started the flow (link-social), after
 * section 5's rules. Linking the same account again refreshes its tokens.
 */
export async function linkProviderAccount(
  orm: Orm,
  rules: LinkingRules,
  cipher: TokenCipher,
  link: {
    providerId: SocialProviderId;
    profile: ProviderUser;
    tokens: Partial<ProviderTokens>;
    user: { userId: string; email: string };
  },
): Promise<LinkRefusal | null> {
  const { providerId, profile } = link;
  if (!rules.trustedProviders.includes(providerId) && !profile.emailVerified) {
    return 'unable_to_link_account';
  }
  if (profile.email?.toLowerCase() !== link.user.email && !rules.allowDifferentEmails) {
    return "email_doesn't_match";
  }
  const accountId = String(profile.id);
  const tokenColumns = accountTokenColumns(link.tokens, cipher);
  try {
    return await orm.em.transactional(async (em): Promise<LinkRefusal | null> => {
      const existing = await em.findOne(Account, { providerId, accountId });
      if (existing) {
        if (existing.user.id !== link.user.userId) {
          return 'account_already_linked_to_different_user';
        }
        em.assign(existing, tokenColumns);
        return null;
      }
      const user = await em.findOne(User, { id: link.user.userId });
      if (!user) return 'unable_to_link_account';
      em.create(Account, { user, providerId, accountId, ...tokenColumns });
      return null;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return 'unable_to_link_account';
    throw error;
  }
}

/**
 * link-social with an id token: the signed-in user's own account of it stays as it is; else it
 * links under the same rules, refused in Better Auth's words for this path.
 */
export async function linkIdTokenAccount(
  em: EntityManager,
  rules: LinkingRules,
  cipher: TokenCipher,
  link: {
    user: User;
    providerId: SocialProviderId;
    profile: ProviderUser & { email: string };
    tokens: Partial<ProviderTokens>;
  },
): Promise<void> {
  const { user, providerId, profile } = link;
  const accountId = String(profile.id);
  if (await em.findOne(Account, { user, providerId, accountId })) return;
  if (!rules.trustedProviders.includes(providerId) && !profile.emailVerified) {
    throw authError('unauthenticated', 'LINKING_NOT_ALLOWED');
  }
  if (profile.email.toLowerCase() !== user.email && !rules.allowDifferentEmails) {
    throw authError('unauthenticated', 'LINKING_DIFFERENT_EMAILS_NOT_ALLOWED');
  }
  try {
    await em.transactional(async (tx) => {
      tx.create(Account, {
        user: user.id,
        providerId,
        accountId,
        ...accountTokenColumns(link.tokens, cipher),
      });
    });
  } catch (error) {
    // The provider account belongs to another user already.
    if (error instanceof UniqueConstraintViolationException) {
      throw authError('not_linked', 'LINKING_FAILED');
    }
    throw error;
  }
}

/** The user's provider accounts (and password account), oldest first. */
export function listProviderAccounts(em: EntityManager, user: User): Promise<Account[]> {
  return em.find(Account, { user }, { orderBy: { createdAt: 'asc' } });
}

/**
 * Unlinks the user's account of `providerId` (and `accountId`, the provider's id of it, when
 * given); the last account a user signs in with stays.
 */
export async function unlinkProviderAccount(
  em: EntityManager,
  user: User,
  which: { providerId: string; accountId?: string | undefined },
): Promise<void> {
  await em.transactional(async (tx) => {
    // With the user's row locked, two unlinks at once cannot each leave the other's account
    // as the last and together remove both.
    await tx.findOneOrFail(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const accounts = await tx.find(Account, { user: user.id });
    if (accounts.length === 1) throw authError('invalid', 'FAILED_TO_UNLINK_LAST_ACCOUNT');
    const account = accounts.find(
      (candidate) =>
        candidate.providerId === which.providerId &&
        (which.accountId === undefined || candidate.accountId === which.accountId),
    );
    if (!account) throw authError('invalid', 'ACCOUNT_NOT_FOUND');
    tx.remove(account);
  });
}

/** The user's account matching `matches`, looked up among theirs only. */
export async function findOwnAccount(
  em: EntityManager,
  userId: string,
  matches: (account: Account) => boolean,
): Promise<Account> {
  const accounts = await em.find(Account, { user: userId });
  const account = accounts.find(matches);
  if (!account) throw authError('invalid', 'ACCOUNT_NOT_FOUND');
  return account;
}

/** Renews the account's access token with its refresh token, and keeps the new tokens. */
export async function refreshAccountTokens(
  em: EntityManager,
  cipher: TokenCipher,
  provider: SocialProvider,
  account: Account,
): Promise<ProviderTokens> {
  const refreshToken = cipher.decrypt(account.refreshToken);
  if (!refreshToken) throw new Error('the account has no usable refresh token');
  const fresh = await provider.refreshAccessToken(refreshToken);
  // A provider that does not rotate refresh tokens sends none: the old one stays good.
  em.assign(account, {
    ...accountTokenColumns(fresh, cipher),
    accessTokenExpiresAt: fresh.accessTokenExpiresAt ?? null,
  });
  await em.flush();
  return fresh;
}
