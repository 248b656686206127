import type { Context } from 'koa';
import { authError } from '../../accounts/errors.ts';
import { isAllowedRedirect } from './origins.ts';

/**
 * The links in mails are GETs, which the origin guard does not see: like Better Auth, they check
 * their `callbackURL` themselves (relative, or on a trusted origin; else 403).
 */
export function checkCallbackURL(callbackURL: string | undefined, trustedOrigins: string[]): void {
  if (callbackURL && !isAllowedRedirect(callbackURL, trustedOrigins)) {
    throw authError('forbidden', 'INVALID_CALLBACK_URL');
  }
}

/** Better Auth's redirect: 302 to `url` as given (relative stays relative), an empty JSON body. */
export function redirect(ctx: Context, url: string): void {
  ctx.redirect(url);
  ctx.type = 'json';
  ctx.body = '';
}

/** `url` with `error=<code>` added to its query, the way Better Auth reports a failed link. */
export function withError(url: string, code: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}error=${code}`;
}
