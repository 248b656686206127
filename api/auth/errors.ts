import { ApiError } from '../errors.ts';

/**
 * The messages of /api/auth, Better Auth's catalogue included. On the wire each error's code is
 * derived from its message, as Better Auth derives it (so "You can't unlink your last account"
 * travels as YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT): clients match on those codes.
 */
export const authMessages = {
  USER_NOT_FOUND: 'User not found',
  FAILED_TO_CREATE_USER: 'Failed to create user',
  FAILED_TO_CREATE_SESSION: 'Failed to create session',
  FAILED_TO_UPDATE_USER: 'Failed to update user',
  FAILED_TO_GET_SESSION: 'Failed to get session',
  INVALID_PASSWORD: 'Invalid password',
  INVALID_EMAIL: 'Invalid email',
  INVALID_EMAIL_OR_PASSWORD: 'Invalid email or password',
  SOCIAL_ACCOUNT_ALREADY_LINKED: 'Social account already linked',
  PROVIDER_NOT_FOUND: 'Provider not found',
  INVALID_TOKEN: 'Invalid token',
  ID_TOKEN_NOT_SUPPORTED: 'id_token not supported',
  FAILED_TO_GET_USER_INFO: 'Failed to get user info',
  USER_EMAIL_NOT_FOUND: 'User email not found',
  EMAIL_NOT_VERIFIED: 'Email not verified',
  PASSWORD_TOO_SHORT: 'Password too short',
  PASSWORD_TOO_LONG: 'Password too long',
  USER_ALREADY_EXISTS: 'User already exists.',
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 'User already exists. Use another email.',
  EMAIL_CAN_NOT_BE_UPDATED: 'Email can not be updated',
  CREDENTIAL_ACCOUNT_NOT_FOUND: 'Credential account not found',
  SESSION_EXPIRED: 'Session expired. Re-authenticate to perform this action.',
  FAILED_TO_UNLINK_LAST_ACCOUNT: "You can't unlink your last account",
  ACCOUNT_NOT_FOUND: 'Account not found',
  USER_ALREADY_HAS_PASSWORD: 'User already has a password. Provide that to delete the account.',
  EMAIL_AND_PASSWORD_SIGN_UP_IS_NOT_ENABLED: 'Email and password sign up is not enabled',
  EMAIL_AND_PASSWORD_IS_NOT_ENABLED: 'Email and password is not enabled',
  SESSION_NOT_FOUND: 'Session not found',
  SESSION_IS_NOT_FRESH: 'Session is not fresh',
  NO_FIELDS_TO_UPDATE: 'No fields to update',
  ROLE_IS_NOT_ALLOWED_TO_BE_SET: 'role is not allowed to be set',
  MISSING_OR_NULL_ORIGIN: 'Missing or null Origin',
  INVALID_ORIGIN: 'Invalid origin',
  INVALID_CALLBACK_URL: 'Invalid callbackURL',
  INVALID_REDIRECT_URL: 'Invalid redirectURL',
  INVALID_ERROR_CALLBACK_URL: 'Invalid errorCallbackURL',
  INVALID_NEW_USER_CALLBACK_URL: 'Invalid newUserCallbackURL',
} as const;

export type AuthMessage = keyof typeof authMessages;

/** Better Auth's rule: upper-case the message, spaces to underscores, drop everything else. */
export function codeFromMessage(message: string): string {
  return message
    .toUpperCase()
    .replaceAll(' ', '_')
    .replace(/[^A-Z0-9_]/g, '');
}

export function authError(status: number, message: AuthMessage): ApiError {
  const text = authMessages[message];
  return new ApiError(status, codeFromMessage(text), text);
}

/**
 * An answer with a status and no body, which is what Better Auth sends when a route needs a
 * session and there is none (401) — its client then reports just the status.
 */
export class EmptyAnswer extends ApiError {
  override name = 'EmptyAnswer';

  constructor(status: number) {
    super(status, '', '');
  }
}
