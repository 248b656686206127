import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  ApiKeyRefusal,
  apiKeyDefaults,
  apiKeyJson,
  createApiKey,
  deleteApiKey,
  deleteExpiredApiKeys,
  findOwnApiKey,
  listApiKeys,
  sweepExpiredApiKeys,
  updateApiKey,
  verifyApiKey,
} from '../../accounts/api-keys.ts';
import { authError, authMessages } from '../../accounts/errors.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import type { User } from '../../db/entities/index.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import { idQuery, keyIdBody } from './schemas.ts';
import { requireSignedIn, signedInOrNull } from './session-context.ts';

// Uses and amounts are kept in 32-bit integer columns.
const counter = z.number().int().max(2_147_483_647);
/** Milliseconds, in bigint columns: a year of them still fits a safe integer. */
const milliseconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const permissions = z.record(z.string(), z.array(z.string()));

export const createBody = z.object({
  name: z.string().optional(),
  expiresIn: z.number().min(1).nullish(),
  userId: z.coerce.string().optional(),
  prefix: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .optional(),
  // null means unlimited, as absent does; Better Auth lets clients send it.
  remaining: counter
    .min(0)
    .nullish()
    .transform((remaining) => remaining ?? undefined),
  metadata: z.any().optional(),
  refillAmount: counter.min(1).optional(),
  refillInterval: milliseconds.optional(),
  rateLimitTimeWindow: milliseconds.optional(),
  rateLimitMax: counter.optional(),
  rateLimitEnabled: z.boolean().optional(),
  permissions: permissions.optional(),
});

export const updateBody = z.object({
  keyId: z.string(),
  userId: z.coerce.string().optional(),
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  remaining: counter.min(1).optional(),
  refillAmount: counter.optional(),
  refillInterval: milliseconds.optional(),
  metadata: z.any().optional(),
  expiresIn: z.number().min(1).nullish(),
  rateLimitEnabled: z.boolean().optional(),
  rateLimitTimeWindow: milliseconds.optional(),
  rateLimitMax: counter.optional(),
  permissions: permissions.nullish(),
});

export const verifyBody = z.object({ key: z.string(), permissions: permissions.optional() });

/**
 * What only the server may set (Better Auth's SERVER_ONLY_PROPERTY): uses, refills, rate limits
 * and permissions. Over HTTP no caller is the server, so these are always refused; server code
 * (the commerce API, seeds, tests) sets them through api-keys.ts.
 */
const serverOnlyFields = [
  'remaining',
  'refillAmount',
  'refillInterval',
  'rateLimitEnabled',
  'rateLimitTimeWindow',
  'rateLimitMax',
  'permissions',
] as const;

function refuseServerOnlyFields(body: Partial<Record<(typeof serverOnlyFields)[number], unknown>>) {
  if (serverOnlyFields.some((field) => body[field] !== undefined)) {
    throw authError('invalid', 'API_KEY_SERVER_ONLY_PROPERTY');
  }
}

/**
 * Better Auth's apiKey plugin (1.3.34): keys for a user's own programs, which also stand for a
 * session in the x-api-key header (session-context.ts). Better Auth serves verify and
 * delete-all-expired-api-keys to server code only; here they are HTTP routes, verify for the
 * servers of apps that hand out keys, delete-all-expired-api-keys for any signed-in user.
 */
export function apiKeyRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router();

  // Better Auth's housekeeping after each call: expired keys go, at most every 10 seconds.
  router.use(async (_ctx, next) => {
    await next();
    await sweepExpiredApiKeys(orm.em);
  });

  /** The caller owning the keys; `userId`, a server-only field, may only name the caller. */
  const keyOwner = async (ctx: Context, userId: string | undefined): Promise<User> => {
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn || (userId !== undefined && userId !== signedIn.user.id)) {
      throw authError('unauthenticated', 'API_KEY_UNAUTHORIZED_SESSION');
    }
    return signedIn.user;
  };

  router.post('/api-key/create', async (ctx) => {
    const body = parseBody(ctx, createBody);
    const owner = await keyOwner(ctx, body.userId);
    refuseServerOnlyFields(body);
    const { apiKey, key } = await createApiKey(orm.em, owner, body);
    // The only answer that ever holds the whole key.
    ctx.body = { ...apiKeyJson(apiKey), key };
  });

  router.post('/api-key/verify', async (ctx) => {
    const body = parseBody(ctx, verifyBody);
    // Better Auth's code for a key too short to be one differs from the x-api-key header's.
    if (body.key.length < apiKeyDefaults.keyLength) {
      ctx.body = {
        valid: false,
        error: { message: authMessages.API_KEY_INVALID, code: 'KEY_NOT_FOUND' },
        key: null,
      };
      return;
    }
    try {
      const apiKey = await verifyApiKey(orm.em, body.key, body.permissions);
      ctx.body = { valid: true, error: null, key: apiKeyJson(apiKey) };
    } catch (error) {
      if (!(error instanceof ApiKeyRefusal)) throw error;
      // A refused key is an answer, not a failed call: 200 with the reason.
      ctx.body = { valid: false, error: { message: error.message, code: error.code }, key: null };
    }
  });

  router.get('/api-key/get', async (ctx) => {
    const { id } = parseQuery(ctx, idQuery);
    const { user } = await requireSignedIn(ctx, orm, settings);
    ctx.body = apiKeyJson(await findOwnApiKey(orm.em, id, user));
  });

  router.post('/api-key/update', async (ctx) => {
    const { keyId, userId, ...changes } = parseBody(ctx, updateBody);
    const owner = await keyOwner(ctx, userId);
    refuseServerOnlyFields(changes);
    const apiKey = await findOwnApiKey(orm.em, keyId, owner);
    await updateApiKey(orm.em, apiKey, changes);
    ctx.body = apiKeyJson(apiKey);
  });

  router.post('/api-key/delete', async (ctx) => {
    const { keyId } = parseBody(ctx, keyIdBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    await deleteApiKey(orm.em, keyId, user);
    ctx.body = { success: true };
  });

  router.get('/api-key/list', async (ctx) => {
    const { user } = await requireSignedIn(ctx, orm, settings);
    ctx.body = (await listApiKeys(orm.em, user)).map(apiKeyJson);
  });

  router.post('/api-key/delete-all-expired-api-keys', async (ctx) => {
    await requireSignedIn(ctx, orm, settings);
    await deleteExpiredApiKeys(orm.em);
    ctx.body = { success: true, error: null };
  });

  return router;
}
