import { createHmac, randomBytes } from 'node:crypto';

/** Every endpoint secret starts with this, as Polar's do. */
export const webhookSecretPrefix = 'whsec_';

/** A new endpoint secret: the prefix and 32 random bytes, base64url (49 characters in all). */
export const generateWebhookSecret = () =>
  `${webhookSecretPrefix}${randomBytes(32).toString('base64url')}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers of one delivery. The HMAC key is the UTF-8 bytes of the whole
 * secret, prefix included: Polar's SDK (`validateEvent`) base64-encodes the secret text before
 * handing it to a Standard Webhooks verifier, which decodes it back to those bytes. A generic
 * verifier is given `base64(secret)` for the same result (docs/receiving-webhooks.md).
 */
export function signWebhook(
  secret: string,
  id: string,
  timestamp: Date,
  body: string,
): SignedHeaders {
  const seconds = Math.floor(timestamp.getTime() / 1000).toString();
  const signature = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${seconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': seconds,
    'webhook-signature': `v1,${signature}`,
  };
}
