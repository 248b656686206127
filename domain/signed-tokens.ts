import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Self-contained grants carried in URLs (upload parts, downloads, OAuth link states, invoices):
 * `<payload>.<signature>`, both base64url, the payload JSON. Each purpose signs with a key of its
 * own derived from the secret, so nothing signed for one purpose passes for another.
 */
const signatureOf = (secret: string, purpose: string, payload: string) =>
  createHmac('sha256', createHmac('sha256', secret).update(purpose).digest())
    .update(payload)
    .digest();

export function signToken(secret: string, purpose: string, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${signatureOf(secret, purpose, payload).toString('base64url')}`;
}

/** The value a token carries, or null when it is malformed or was not signed for `purpose`. */
export function readSignedToken(secret: string, purpose: string, token: string): unknown {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length) return null;
  const expected = signatureOf(secret, purpose, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}
