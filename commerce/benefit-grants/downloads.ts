import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';

/** How long a download URL stays valid (as S3's presigned URLs Polar hands out: one hour). */
export const downloadUrlLifetimeMs = 60 * 60 * 1000;

/** The right to download one granted file: what a download URL carries, signed. */
export interface DownloadGrant {
  downloadableId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const downloadPurpose = 'tollgate downloadable download';

/** The last path segment of a download URL. */
export const signDownload = (secret: string, grant: DownloadGrant): string =>
  signToken(secret, downloadPurpose, [grant.downloadableId, grant.expiresAt]);

/** The grant a download URL carries, or null when it is malformed, forged or expired. */
export function readDownload(
  secret: string,
  token: string,
  now = Date.now(),
): DownloadGrant | null {
  const grant = readSignedToken(secret, downloadPurpose, token);
  if (!Array.isArray(grant)) return null;
  const [downloadableId, expiresAt] = grant;
  if (typeof downloadableId !== 'string' || typeof expiresAt !== 'number') return null;
  if (expiresAt <= now) return null;
  return { downloadableId, expiresAt };
}

/** Where a customer downloads a granted file: under this API's public URL. */
export const downloadUrl = (publicUrl: string, token: string) =>
  new URL(`v1/customer-portal/downloadables/files/${token}`, `${publicUrl.replace(/\/$/, '')}/`)
    .href;
