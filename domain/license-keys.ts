/**
 * License key rules that need no database: how a key is made and shown, when it expires.
 * Plain functions, as Polar's `LicenseKey` model computes them.
 */
import { randomUUID } from 'node:crypto';

export type LicenseKeyTimeframe = 'year' | 'month' | 'day';

/** `<PREFIX>-<UUID>` in upper case, or the bare upper-case UUID without a prefix. */
export function generateLicenseKey(prefix: string | null | undefined): string {
  const key = randomUUID().toUpperCase();
  return prefix ? `${prefix.toUpperCase()}-${key}` : key;
}

/** What lists show instead of the key: `****-` and its last six characters. */
export const displayLicenseKey = (key: string) => `****-${key.slice(-6)}`;

/**
 * When a key granted at `from` expires: `ttl` calendar days, months or years later (a month
 * later than the 31st is the last day of the shorter month); null when it never expires.
 */
export function licenseKeyExpiry(
  from: Date,
  expires: { ttl: number; timeframe: LicenseKeyTimeframe } | null | undefined,
): Date | null {
  if (!expires) return null;
  const at = new Date(from);
  if (expires.timeframe === 'day') {
    at.setUTCDate(at.getUTCDate() + expires.ttl);
    return at;
  }
  const months = expires.timeframe === 'year' ? expires.ttl * 12 : expires.ttl;
  const day = at.getUTCDate();
  at.setUTCDate(1);
  at.setUTCMonth(at.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, lastDay));
  return at;
}

/** Whether a key of this status and expiry may be used at `now`. */
export function licenseKeyRefusal(
  key: { status: string; expiresAt: Date | null | undefined },
  now: Date,
): string | null {
  if (key.status !== 'granted') return 'License key is no longer active.';
  if (key.expiresAt && key.expiresAt <= now) return 'License key has expired.';
  return null;
}
