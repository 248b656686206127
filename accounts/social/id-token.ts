import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { z } from 'zod';

const headerSchema = z.object({ alg: z.string(), kid: z.string().optional() });

const jwksSchema = z.object({
  keys: z.array(z.object({ kid: z.string().optional(), kty: z.string() }).loose()),
});

/** Decodes one base64url JSON part of a JWT; null when it is not that. */
function decodePart(part: string | undefined): unknown {
  if (!part) return null;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

/** The claims of a JWT, unchecked: only for tokens received straight from the provider. */
export function decodeJwtClaims(token: string): Record<string, unknown> | null {
  const claims = decodePart(token.split('.')[1]);
  return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
}

/**
 * The signing keys a provider publishes (its JWKS), fetched on first use and again when a token
 * names a key not seen yet — at most once a minute, so forged key ids cannot make us hammer it.
 */
export class RemoteKeySet {
  readonly #url: string;
  #keys = new Map<string, KeyObject>();
  #fetchedAt = 0;

  constructor(url: string) {
    this.#url = url;
  }

  async key(kid: string): Promise<KeyObject | undefined> {
    if (!this.#keys.has(kid) && Date.now() - this.#fetchedAt > 60_000) await this.#refresh();
    return this.#keys.get(kid);
  }

  async #refresh(): Promise<void> {
    this.#fetchedAt = Date.now();
    const response = await fetch(this.#url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return;
    const jwks = jwksSchema.safeParse(await response.json());
    if (!jwks.success) return;
    const keys = new Map<string, KeyObject>();
    for (const jwk of jwks.data.keys) {
      if (jwk.kid && jwk.kty === 'RSA') {
        keys.set(jwk.kid, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
      }
    }
    this.#keys = keys;
  }
}

/**
 * The claims of an RS256 JWT signed by one of `keys`, or null when the signature does not
 * check out. The claims themselves (issuer, audience, expiry) are the caller's to check.
 */
export async function verifiedJwtClaims(
  token: string,
  keys: RemoteKeySet,
): Promise<Record<string, unknown> | null> {
  const [header, payload, signature] = token.split('.');
  const parsedHeader = headerSchema.safeParse(decodePart(header));
  if (!parsedHeader.success || parsedHeader.data.alg !== 'RS256' || !parsedHeader.data.kid) {
    return null;
  }
  const key = await keys.key(parsedHeader.data.kid).catch(() => undefined);
  if (!key || !payload || !signature) return null;
  const signed = Buffer.from(`${header}.${payload}`);
  const valid = verify('RSA-SHA256', signed, key, Buffer.from(signature, 'base64url'));
  return valid ? decodeJwtClaims(token) : null;
}
