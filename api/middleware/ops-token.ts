import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Guards the operations API with the configured bearer token. Comparing digests in constant
 * time keeps both the token and its length out of reach of timing.
 */
export function requireOpsToken(opsToken: string | undefined): Middleware {
  const expected = opsToken === undefined ? undefined : digest(opsToken);
  return async (ctx, next) => {
    if (!expected)
      throw new ApiError(
        403,
        'OPS_API_DISABLED',
        'The operations API is disabled: set TOLLGATE_OPS_TOKEN',
      );
    const presented = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      throw new ApiError(401, 'UNAUTHORIZED', 'A valid operations token is required');
    }
    await next();
  };
}
