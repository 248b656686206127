import { hash } from 'node:crypto';

/**
 * What a bearer secret (an access token, a session or verification token) is stored and looked
 * up by: its SHA-256, in hex. A leaked table gives no usable token back. One-shot `hash`, no
 * Hash object per call: requests with a token hash it every time.
 */
export const hashToken = (token: string) => hash('sha256', token, 'hex');
