import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger.ts';

const redacted = '[redacted]';

/**
 * Paths whose segment after the prefix is itself a credential: checkout client secrets (the
 * hosted page and the client API), checkout link secrets, signed download and upload-part
 * grants, and password reset tokens. Routing ignores letter case, so these do too.
 */
const secretSegments = [
  /^(\/checkout\/)[^/]+/i,
  /^(\/v1\/checkouts\/client\/)[^/]+/i,
  /^(\/v1\/checkout-links\/)[^/]+(?=\/redirect\/?$)/i,
  /^(\/v1\/customer-portal\/downloadables\/files\/)[^/]+/i,
  /^(\/v1\/files\/uploads\/)[^/]+/i,
  /^(\/api\/auth\/reset-password\/)[^/]+/i,
];

/**
 * The path as logs may keep it: credentials in it replaced. The query string (invoice link
 * signatures, OAuth states and codes, verification tokens) is never logged at all.
 */
export function redactedPath(path: string): string {
  const secret = secretSegments.find((pattern) => pattern.test(path));
  return secret ? path.replace(secret, `$1${redacted}`) : path;
}

/** One structured log line per request, with an id that is also sent back as x-request-id. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('x-request-id', requestId);
    try {
      await next();
    } finally {
      // Built only when kept: below info (LOG_LEVEL=warn) pino would drop the line anyway.
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            requestId,
            method: ctx.method,
            path: redactedPath(ctx.path),
            status: ctx.status,
            durationMs: Math.round(performance.now() - started),
          },
          'request',
        );
      }
    }
  };
}
