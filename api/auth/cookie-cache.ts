import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { sessionJson, userJson } from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { cookieNames, readCookie, setCookie } from './cookies.ts';

export interface CachedSession {
  session: ReturnType<typeof sessionJson>;
  user: ReturnType<typeof userJson>;
}

/** Browsers drop cookies above 4096 bytes; like Better Auth, a larger cache is not written. */
export const maxCookieCacheLength = 4093;

const sign = (payload: string, secret: string) =>
  createHmac('sha256', secret).update(payload).digest('base64url');

/**
 * Writes the session and user, signed and with their own expiry, into the session_data cookie;
 * answers false when the result would be too long for a cookie (nothing is written then).
 */
export function writeCookieCache(
  ctx: Context,
  settings: AuthSettings,
  cached: CachedSession,
): boolean {
  const payload = JSON.stringify({
    ...cached,
    expiresAt: Date.now() + settings.cookieCache.maxAgeSeconds * 1000,
  });
  const value = Buffer.from(
    JSON.stringify({ payload, signature: sign(payload, settings.secret) }),
  ).toString('base64url');
  if (value.length > maxCookieCacheLength) return false;
  setCookie(
    ctx,
    settings,
    cookieNames(settings).sessionData,
    value,
    settings.cookieCache.maxAgeSeconds,
  );
  return true;
}

/**
 * The cached session, or `absent` (no cookie, or it expired), or `forged` (the signature does
 * not match: the caller answers as if signed out and clears the cookie).
 */
export function readCookieCache(
  ctx: Context,
  settings: AuthSettings,
): CachedSession | 'absent' | 'forged' {
  const raw = readCookie(ctx, cookieNames(settings).sessionData);
  if (!raw) return 'absent';
  let envelope: { payload?: unknown; signature?: unknown };
  try {
    envelope = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return 'forged';
  }
  const { payload, signature } = envelope;
  if (typeof payload !== 'string' || typeof signature !== 'string') return 'forged';
  const expected = Buffer.from(sign(payload, settings.secret));
  const presented = Buffer.from(signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented))
    return 'forged';
  const cached = JSON.parse(payload) as CachedSession & { expiresAt: number };
  const sessionEnds = new Date(cached.session.expiresAt).getTime();
  if (cached.expiresAt <= Date.now() || sessionEnds <= Date.now()) return 'absent';
  return { session: cached.session, user: cached.user };
}
