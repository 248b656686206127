import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { AuthSettings } from '../../accounts/settings.ts';

/**
 * Better Auth's cookies, byte for byte: `<value>.<base64 HMAC-SHA256(secret, value)>`,
 * URL-encoded, under the `better-auth.` prefix (`__Secure-better-auth.` over HTTPS).
 */
export type CookieSettings = Pick<AuthSettings, 'secret' | 'secure'>;

/** `better-auth.<name>`, with the `__Secure-` prefix browsers require for Secure cookies. */
export function cookieName({ secure }: Pick<CookieSettings, 'secure'>, name: string): string {
  return `${secure ? '__Secure-' : ''}better-auth.${name}`;
}

export function cookieNames(settings: Pick<CookieSettings, 'secure'>) {
  return {
    sessionToken: cookieName(settings, 'session_token'),
    sessionData: cookieName(settings, 'session_data'),
    dontRemember: cookieName(settings, 'dont_remember'),
  };
}

const signature = (value: string, secret: string) =>
  createHmac('sha256', secret).update(value).digest('base64');

export function signCookieValue(value: string, secret: string): string {
  return `${value}.${signature(value, secret)}`;
}

/** The value inside a signed cookie, or null when it is malformed or was not signed by us. */
export function verifySignedCookie(raw: string, secret: string): string | null {
  const signed = raw.includes('%') ? safeDecode(raw) : raw;
  const dot = signed?.lastIndexOf('.') ?? -1;
  if (!signed || dot < 1) return null;
  const value = signed.slice(0, dot);
  const presented = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(signature(value, secret));
  return presented.length === expected.length && timingSafeEqual(presented, expected)
    ? value
    : null;
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Reads one cookie from the request's Cookie header, undecoded. */
export function readCookie(ctx: Context, name: string): string | undefined {
  for (const part of ctx.get('cookie').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name)
      return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** Appends a Set-Cookie header with Better Auth's attributes; no `maxAge` means a browser-session cookie. */
export function setCookie(
  ctx: Context,
  settings: Pick<CookieSettings, 'secure'>,
  name: string,
  value: string,
  maxAgeSeconds?: number,
): void {
  const attributes = [`${name}=${encodeURIComponent(value)}`];
  if (maxAgeSeconds !== undefined) attributes.push(`Max-Age=${Math.floor(maxAgeSeconds)}`);
  attributes.push('Path=/', 'HttpOnly');
  if (settings.secure) attributes.push('Secure');
  attributes.push('SameSite=Lax');
  ctx.append('Set-Cookie', attributes.join('; '));
}

export function setSessionCookies(
  ctx: Context,
  settings: CookieSettings,
  token: string,
  { rememberMe, maxAgeSeconds }: { rememberMe: boolean; maxAgeSeconds: number },
): void {
  const names = cookieNames(settings);
  const signedToken = signCookieValue(token, settings.secret);
  setCookie(ctx, settings, names.sessionToken, signedToken, rememberMe ? maxAgeSeconds : undefined);
  if (!rememberMe)
    setCookie(ctx, settings, names.dontRemember, signCookieValue('true', settings.secret));
}

/** Better Auth clears all three cookies, in this order, with Max-Age=0. */
export function clearSessionCookies(ctx: Context, settings: CookieSettings): void {
  const names = cookieNames(settings);
  for (const name of [names.sessionToken, names.sessionData, names.dontRemember]) {
    setCookie(ctx, settings, name, '', 0);
  }
}
