import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { AppError } from '../../core/errors.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a request presents the configured ops token as its bearer token (never, when none
 * is configured). Comparing digests in constant time keeps both the token and its length out
 * of reach of timing.
 */
export function opsTokenCheck(opsToken: string | undefined): (ctx: Context) => boolean {
  const expected = opsToken === undefined ? undefined : digest(opsToken);
  return (ctx) => {
    const presented = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
    return Boolean(expected && presented && timingSafeEqual(digest(presented), expected));
  };
}

/** Guards the operations API with the configured bearer token. */
export function requireOpsToken(opsToken: string | undefined): Middleware {
  const presentsOpsToken = opsTokenCheck(opsToken);
  return async (ctx, next) => {
    if (opsToken === undefined)
      throw new AppError(
        'forbidden',
        'OPS_API_DISABLED',
        'The operations API is disabled: set TOLLGATE_OPS_TOKEN',
      );
    if (!presentsOpsToken(ctx)) {
      throw new AppError('unauthenticated', 'UNAUTHORIZED', 'A valid operations token is required');
    }
    await next();
  };
}
