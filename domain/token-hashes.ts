import { createHash } from 'node:crypto';

/**
 * What a bearer secret (an access token, a session or verification token) is stored and looked
 * up by: its SHA-256, in hex. A leaked table gives no usable token back.
 */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
