import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Provider tokens at rest. They are handed back later (get-access-token, account-info), so
 * unlike our own session tokens they cannot be stored as hashes; they are encrypted instead
 * (AES-256-GCM, key derived from the auth secret), so that reading the accounts table gives no
 * usable GitHub, Google or Discord token. Stored as base64url of iv | tag | ciphertext.
 */
export interface TokenCipher {
  encrypt(token: string): string;
  /** Null when the value was not encrypted with this secret (a rotated TOLLGATE_AUTH_SECRET). */
  decrypt(stored: string | null | undefined): string | null;
}

const ivLength = 12;
const tagLength = 16;

export function tokenCipher(secret: string): TokenCipher {
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'tollgate oauth provider tokens', 32));

  function encrypt(token: string): string {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
  }

  function decrypt(stored: string | null | undefined): string | null {
    if (!stored) return null;
    const bytes = Buffer.from(stored, 'base64url');
    if (bytes.length <= ivLength + tagLength) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivLength));
      decipher.setAuthTag(bytes.subarray(ivLength, ivLength + tagLength));
      const plaintext = decipher.update(bytes.subarray(ivLength + tagLength));
      return Buffer.concat([plaintext, decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  return { encrypt, decrypt };
}
