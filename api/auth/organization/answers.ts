import type { Context } from 'koa';
import type { AuthSettings } from '../../../accounts/settings.ts';
import { cookieNames, setCookie } from '../cookies.ts';

/**
 * Answers a JSON `null` with status 200, as Better Auth's `ctx.json(null, { status: 400 })` does
 * (and where Koa would send a bodiless 204).
 */
export function answerNull(ctx: Context): void {
  ctx.type = 'json';
  ctx.body = 'null';
}

/**
 * The caller's session changed in the database: a cookie-cached copy of it would be stale, so
 * it goes, and the next get-session reads (and caches) the new state.
 */
export function dropCookieCache(ctx: Context, settings: AuthSettings): void {
  if (settings.cookieCache.enabled) {
    setCookie(ctx, settings, cookieNames(settings).sessionData, '', 0);
  }
}
