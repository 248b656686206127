import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a download URL stays valid (as S3's presigned URLs Polar hands out: one hour). */
export const downloadUrlLifetimeMs = 60 * 60 * 1000;

/** The right to download one granted file: what a download URL carries, signed. */
export interface DownloadGrant {
  downloadableId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

// A key of its own for download URLs, so nothing else signed with the auth secret passes as one.
const downloadKey = (secret: string) =>
  createHmac('sha256', secret).update('tollgate downloadable download').digest();
const downloadSignature = (secret: string, payload: string) =>
  createHmac('sha256', downloadKey(secret)).update(payload).digest();

/** `<payload>.<signature>`, both base64url: the last path segment of a download URL. */
export function signDownload(secret: string, grant: DownloadGrant): string {
  const payload = Buffer.from(JSON.stringify([grant.downloadableId, grant.expiresAt])).toString(
    'base64url',
  );
  return `${payload}.${downloadSignature(secret, payload).toString('base64url')}`;
}

/** The grant a download URL carries, or null when it is malformed, forged or expired. */
export function readDownload(
  secret: string,
  token: string,
  now = Date.now(),
): DownloadGrant | null {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length) return null;
  const expected = downloadSignature(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const [downloadableId, expiresAt] = JSON.parse(
    Buffer.from(payload, 'base64url').toString('utf8'),
  );
  if (typeof downloadableId !== 'string' || typeof expiresAt !== 'number') return null;
  if (expiresAt <= now) return null;
  return { downloadableId, expiresAt };
}

/** Where a customer downloads a granted file: under this API's public URL. */
export const downloadUrl = (publicUrl: string, token: string) =>
  new URL(`v1/customer-portal/downloadables/files/${token}`, `${publicUrl.replace(/\/$/, '')}/`)
    .href;
