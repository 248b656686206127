import Router from '@koa/router';
import { z } from 'zod';
import { authError, codeFromMessage } from '../../../accounts/errors.ts';
import {
  findOwnAccount,
  listProviderAccounts,
  refreshAccountTokens,
  unlinkProviderAccount,
} from '../../../accounts/social/accounts.ts';
import type { ProviderTokens, SocialProvider } from '../../../accounts/social/provider.ts';
import { AppError, type Refusal } from '../../../core/errors.ts';
import type { Account } from '../../../db/entities/index.ts';
import { parseBody } from '../../validation.ts';
import { requireFreshSession, requireSignedIn } from '../session-context.ts';
import type { SocialContext } from './context.ts';

export const unlinkAccountBody = z.object({
  providerId: z.string(),
  accountId: z.string().optional(),
});

// `userId` is for Better Auth's server-side calls; over HTTP the session decides whose tokens.
export const providerTokenBody = z.object({
  providerId: z.string(),
  accountId: z.string().optional(),
  userId: z.string().optional(),
});

export const accountInfoBody = z.object({ accountId: z.string() });

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
    const accounts = await listProviderAccounts(orm.em, user);
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
    await unlinkProviderAccount(orm.em, user, body);
    ctx.body = { status: true };
  });

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
        fresh = await refreshAccountTokens(orm.em, cipher, provider, account);
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
    const account = await findOwnAccount(orm.em, user.id, tokenRequestFor(body));
    ctx.body = await currentTokens(provider, account);
  });

  router.post('/refresh-token', async (ctx) => {
    const body = parseBody(ctx, providerTokenBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    const account = await findOwnAccount(orm.em, user.id, tokenRequestFor(body));
    const provider = providers.get(body.providerId);
    if (!provider) throw wordedError('invalid', `Provider ${body.providerId} not found.`);
    let fresh: ProviderTokens;
    try {
      fresh = await refreshAccountTokens(orm.em, cipher, provider, account);
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
    const account = await findOwnAccount(
      orm.em,
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
