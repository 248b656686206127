import type { Context, Middleware } from 'koa';
import { bearerTokenCheck } from '../../core/bearer-token.ts';
import { AppError } from '../../core/errors.ts';

/** Whether a request presents the configured ops token as its bearer token (see bearerTokenCheck). */
export function opsTokenCheck(opsToken: string | undefined): (ctx: Context) => boolean {
  const presents = bearerTokenCheck(opsToken);
  return (ctx) => presents(ctx.get('authorization'));
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
