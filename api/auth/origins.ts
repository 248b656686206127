import type { Middleware } from 'koa';
import { type AuthMessage, authError } from '../../accounts/errors.ts';

// Better Auth's rule for a relative redirect: one leading slash, plain path characters, an
// optional query; nothing that a browser could read as another host (`//`, `\`, encoded slashes).
const safeRelativeUrl = /^\/(?!\/|\\|%2f|%5c)[\w\-.+/@]*(?:\?[\w\-.+/=&%@]*)?$/i;

export function isTrustedOrigin(origin: string, trustedOrigins: string[]): boolean {
  try {
    return trustedOrigins.includes(new URL(origin).origin);
  } catch {
    return false;
  }
}

/** A redirect target is fine when relative and plain, or on a trusted origin. */
export function isAllowedRedirect(url: string, trustedOrigins: string[]): boolean {
  return safeRelativeUrl.test(url) || isTrustedOrigin(url, trustedOrigins);
}

const redirectFields: [field: string, error: AuthMessage][] = [
  ['callbackURL', 'INVALID_CALLBACK_URL'],
  ['redirectTo', 'INVALID_REDIRECT_URL'],
  ['errorCallbackURL', 'INVALID_ERROR_CALLBACK_URL'],
  ['newUserCallbackURL', 'INVALID_NEW_USER_CALLBACK_URL'],
];

/**
 * Cross-site request forgery and open-redirect guard for /api/auth, run on every POST:
 * a request carrying cookies must come from a trusted Origin (or Referer), and every redirect
 * target in the body or query must be relative or trusted. Both answer 403.
 */
export function originGuard(trustedOrigins: string[]): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    if (ctx.get('cookie')) {
      const origin = ctx.get('origin') || ctx.get('referer');
      if (!origin || origin === 'null') throw authError('forbidden', 'MISSING_OR_NULL_ORIGIN');
      if (!isTrustedOrigin(origin, trustedOrigins)) throw authError('forbidden', 'INVALID_ORIGIN');
    }
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    for (const [field, error] of redirectFields) {
      const value = body[field] ?? (field === 'callbackURL' ? ctx.query.callbackURL : undefined);
      if (typeof value === 'string' && value && !isAllowedRedirect(value, trustedOrigins)) {
        throw authError('forbidden', error);
      }
    }
    await next();
  };
}
