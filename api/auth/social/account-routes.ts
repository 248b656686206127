import Router from '@koa/router';
import { LockMode } from '@mikro-orm/core';
import { z } from 'zod';
import { authError, codeFromMessage } from '../../../accounts/errors.ts';
import { accountTokenColumns } from '../../../accounts/social/accounts.ts';
import type { ProviderTokens, SocialProvider } from '../../../accounts/social/provider.ts';
import { AppError, type Refusal } from '../../../core/errors.ts';
import { Account, User } from '../../../db/entities/index.ts';
import { parseBody } from '../../validation.ts';
import { requireFreshSession, requireSignedIn } from '../session-context.ts';
import type { SocialContext } from './context.ts';

const unlinkAccountBody = z.object({ providerId: z.string(), accountId: z.string().optional() });

// `userId` is for Better Auth's server-side calls; over HTTP the session decides whose tokens.
const providerTokenBody = z.object({
  providerId: z.string(),
  accountId: z.string().optional(),
  userId: z.string().optional(),
});

const accountInfoBody = z.object({ accountId: z.string() });

/** For the token calls, Better Auth's accountId is the account row's id, not the provider's. */
const tokenRequestFor =
  ({ providerId, accountId }: z.infer<typeof providerTokenBody>) =>
  (account: Account) =>
    account.providerId === providerId && (accountId === undefined || account.id === accountId);

/** Better Auth words some errors with the provider's id in them; the code follows the words. */
const wordedError = (refusal: Refusal, message: string) =>
  new AppError(refusal, codeFromMessage(message), message);

/**
 * The signed-in user's provider accounts: listing and unlinking them, their access tokens
 * (renewed when about to expire) and what the provider says about them. Only ever the
 * caller's own accounts.
 */
export function providerAccountRoutes({
  dependencies,
  settings,
  providers,
  cipher,
}: SocialContext): Router {
  const { orm, logger } = dependencies;
  const router = new Router();

  router.get('/list-accounts', async (ctx) => {
    const { user } = await requireSignedIn(ctx, orm, settings);
    const accounts = await orm.em.find(Account, { user }, { orderBy: { createdAt: 'asc' } });
    ctx.body = accounts.map((account) => ({
      id: account.id,
      providerId: account.providerId,
      createdAt: account.createdAt,
      updatedAt: account.updatedAt,
      accountId: account.accountId,
      scopes: account.scope?.split(',') ?? [],
    }));
  });

  router.post('/unlink-account', async (ctx) => {
    const body = parseBody(ctx, unlinkAccountBody);
    const { user } = await requireFreshSession(ctx, orm, settings);
    await orm.em.transactional(async (em) => {
      // With the user's row locked, two unlinks at once cannot each leave the other's account
      // as the last and together remove both.
      await em.findOneOrFail(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const accounts = await em.find(Account, { user: user.id });
      if (accounts.length === 1) throw authError('invalid', 'FAILED_TO_UNLINK_LAST_ACCOUNT');
      const account = accounts.find(
        (candidate) =>
          candidate.providerId === body.providerId &&
          (body.accountId === undefined || candidate.accountId === body.accountId),
      );
      if (!account) throw authError('invalid', 'ACCOUNT_NOT_FOUND');
      em.remove(account);
    });
    ctx.body = { status: true };
  });

  /** The signed-in user's account matching `matches`, looked up among theirs only. */
  async function ownAccount(userId: string, matches: (account: Account) => boolean) {
    const accounts = await orm.em.find(Account, { user: userId });
    const account = accounts.find(matches);
    if (!account) throw authError('invalid', 'ACCOUNT_NOT_FOUND');
    return account;
  }

  /** Renews the account's access token with its refresh token, and keeps the new tokens. */
  async function refreshTokens(provider: SocialProvider, account: Account) {
    const refreshToken = cipher.decrypt(account.refreshToken);
    if (!refreshToken) throw new Error('the account has no usable refresh token');
    const fresh = await provider.refreshAccessToken(refreshToken);
    // A provider that does not rotate refresh tokens sends none: the old one stays good.
    orm.em.assign(account, {
      ...accountTokenColumns(fresh, cipher),
      accessTokenExpiresAt: fresh.accessTokenExpiresAt ?? null,
    });
    await orm.em.flush();
    return fresh;
  }

  /**
   * The account's tokens, the access token renewed first when it expires within 5 seconds
   * (spec section 9) and a refresh token is at hand.
   */
  async function currentTokens(provider: SocialProvider, account: Account) {
    const expiresAt = account.accessTokenExpiresAt;
    const expiring = !!expiresAt && expiresAt.getTime() - Date.now() < 5_000;
    let fresh: ProviderTokens | undefined;
    if (expiring && account.refreshToken) {
      try {
        fresh = await refreshTokens(provider, account);
      } catch (refreshError) {
        logger.warn({ err: refreshError, provider: provider.id }, 'access token refresh failed');
        throw authError('invalid', 'FAILED_TO_GET_A_VALID_ACCESS_TOKEN');
      }
    }
    return {
      accessToken: fresh?.accessToken ?? cipher.decrypt(account.accessToken) ?? '',
      accessTokenExpiresAt:
        fresh?.accessTokenExpiresAt ?? account.accessTokenExpiresAt ?? undefined,
      scopes: account.scope?.split(',') ?? [],
      idToken: fresh?.idToken ?? cipher.decrypt(account.idToken) ?? undefined,
    };
  }

  router.post('/get-access-token', async (ctx) => {
    const body = parseBody(ctx, providerTokenBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    const provider = providers.get(body.providerId);
    if (!provider) throw wordedError('invalid', `Provider ${body.providerId} is not supported.`);
    const account = await ownAccount(user.id, tokenRequestFor(body));
    ctx.body = await currentTokens(provider, account);
  });

  router.post('/refresh-token', async (ctx) => {
    const body = parseBody(ctx, providerTokenBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    const account = await ownAccount(user.id, tokenRequestFor(body));
    const provider = providers.get(body.providerId);
    if (!provider) throw wordedError('invalid', `Provider ${body.providerId} not found.`);
    let fresh: ProviderTokens;
    try {
      fresh = await refreshTokens(provider, account);
    } catch (refreshError) {
      logger.warn({ err: refreshError, provider: provider.id }, 'access token refresh failed');
      throw authError('invalid', 'FAILED_TO_REFRESH_ACCESS_TOKEN');
    }
    ctx.body = {
      accessToken: fresh.accessToken,
      refreshToken: fresh.refreshToken,
      tokenType: fresh.tokenType,
      scopes: fresh.scopes,
      idToken: fresh.idToken,
      accessTokenExpiresAt: fresh.accessTokenExpiresAt,
    };
  });

  router.post('/account-info', async (ctx) => {
    const body = parseBody(ctx, accountInfoBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    // Here accountId is the provider's id of the account.
    const account = await ownAccount(
      user.id,
      (candidate) => candidate.accountId === body.accountId,
    );
    const provider = providers.get(account.providerId);
    if (!provider) {
      throw wordedError(
        'internal',
        `Provider account provider is ${account.providerId} but it is not configured`,
      );
    }
    const tokens = await currentTokens(provider, account);
    if (!tokens.accessToken) throw authError('invalid', 'ACCESS_TOKEN_NOT_FOUND');
    const info = await provider.userInfo(tokens);
    if (!info) {
      ctx.type = 'json';
      ctx.body = 'null';
      return;
    }
    ctx.body = info;
  });

  return router;
}
