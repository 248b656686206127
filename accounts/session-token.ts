import { hash } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

/**
 * Session tokens after Lucia's guide: the client holds 20 random bytes (base32, 32 characters);
 * the database holds only their SHA-256, so reading the sessions table gives no usable token.
 */
export function generateSessionToken(): string {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return encodeBase32LowerCaseNoPadding(bytes);
}

/** The session's primary key: hex SHA-256 of its token (node's native hash: every request asks). */
export function sessionIdFromToken(token: string): string {
  return hash('sha256', token, 'hex');
}
