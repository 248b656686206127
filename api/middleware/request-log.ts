import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger.ts';

/** One structured log line per request, with an id that is also sent back as x-request-id. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('x-request-id', requestId);
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
