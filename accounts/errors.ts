import { AppError, type Refusal } from '../core/errors.ts';

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
  // Verification, password and email changes.
  YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_AN_UNVERIFIED_EMAIL:
    'You can only send a verification email to an unverified email',
  YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_YOUR_OWN_EMAIL:
    'You can only send a verification email to your own email',
  USER_ALREADY_HAS_A_PASSWORD: 'user already has a password',
  EMAIL_IS_THE_SAME: 'Email is the same',
  COULDNT_UPDATE_YOUR_EMAIL: "Couldn't update your email",
  // GET /verify-email without a callbackURL answers its redirect error codes as messages.
  VERIFY_EMAIL_INVALID_TOKEN: 'invalid_token',
  VERIFY_EMAIL_TOKEN_EXPIRED: 'token_expired',
  VERIFY_EMAIL_USER_NOT_FOUND: 'user_not_found',
  VERIFY_EMAIL_UNAUTHORIZED: 'unauthorized',
  // Better Auth's admin plugin.
  YOU_CANNOT_BAN_YOURSELF: 'You cannot ban yourself',
  YOU_CANNOT_REMOVE_YOURSELF: 'You cannot remove yourself',
  YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE: 'You are not allowed to change users role',
  YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS: 'You are not allowed to create users',
  YOU_ARE_NOT_ALLOWED_TO_LIST_USERS: 'You are not allowed to list users',
  YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS: 'You are not allowed to list users sessions',
  YOU_ARE_NOT_ALLOWED_TO_BAN_USERS: 'You are not allowed to ban users',
  YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS: 'You are not allowed to impersonate users',
  YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS: 'You are not allowed to revoke users sessions',
  YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS: 'You are not allowed to delete users',
  YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD: 'You are not allowed to set users password',
  YOU_ARE_NOT_ALLOWED_TO_GET_USER: 'You are not allowed to get user',
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS: 'You are not allowed to update users',
  YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE:
    'You are not allowed to set a non-existent role value',
  NO_DATA_TO_UPDATE: 'No data to update',
  YOU_ARE_NOT_IMPERSONATING_ANYONE: 'You are not impersonating anyone',
  FAILED_TO_FIND_ADMIN_SESSION: 'Failed to find admin session',
  BANNED_USER:
    'You have been banned from this application. Please contact support if you believe this is an error.',
  // Better Auth's apiKey plugin.
  API_KEY_NOT_FOUND: 'API Key not found',
  API_KEY_DISABLED: 'API Key is disabled',
  API_KEY_EXPIRED: 'API Key has expired',
  API_KEY_USAGE_EXCEEDED: 'API Key has reached its usage limit',
  API_KEY_RATE_LIMITED: 'Rate limit exceeded.',
  API_KEY_INVALID: 'Invalid API key.',
  API_KEY_UNAUTHORIZED_SESSION: 'Unauthorized or invalid session',
  API_KEY_SERVER_ONLY_PROPERTY:
    "The property you're trying to set can only be set from the server auth instance only.",
  API_KEY_INVALID_METADATA_TYPE: 'metadata must be an object or undefined',
  API_KEY_REFILL_AMOUNT_WITHOUT_INTERVAL:
    'refillAmount is required when refillInterval is provided',
  API_KEY_REFILL_INTERVAL_WITHOUT_AMOUNT:
    'refillInterval is required when refillAmount is provided',
  API_KEY_EXPIRES_IN_TOO_SMALL: 'The expiresIn is smaller than the predefined minimum value.',
  API_KEY_EXPIRES_IN_TOO_LARGE: 'The expiresIn is larger than the predefined maximum value.',
  API_KEY_INVALID_PREFIX_LENGTH: 'The prefix length is either too large or too small.',
  API_KEY_INVALID_NAME_LENGTH: 'The name length is either too large or too small.',
  API_KEY_NO_VALUES_TO_UPDATE: 'No values to update.',
  // Social sign-in (the callback turns the first three into account_not_linked and so on).
  ACCOUNT_NOT_LINKED: 'account not linked',
  UNABLE_TO_LINK_ACCOUNT: 'unable to link account',
  UNABLE_TO_CREATE_USER: 'unable to create user',
  LINKING_NOT_ALLOWED: 'Account not linked - linking not allowed',
  LINKING_DIFFERENT_EMAILS_NOT_ALLOWED: 'Account not linked - different emails not allowed',
  LINKING_FAILED: 'Account not linked - unable to create account',
  FAILED_TO_GET_A_VALID_ACCESS_TOKEN: 'Failed to get a valid access token',
  FAILED_TO_REFRESH_ACCESS_TOKEN: 'Failed to refresh access token',
  ACCESS_TOKEN_NOT_FOUND: 'Access token not found',
  // Better Auth's Stripe plugin: subscription/restore.
  SUBSCRIPTION_NOT_FOUND: 'Subscription not found',
  SUBSCRIPTION_ID_NOT_FOUND: 'Subscription ID not found',
  SUBSCRIPTION_NOT_ACTIVE: 'Subscription is not active',
  SUBSCRIPTION_NOT_SCHEDULED_FOR_CANCELLATION: 'Subscription is not scheduled for cancellation',
} as const;

export type AuthMessage = keyof typeof authMessages;

/** Better Auth's rule: upper-case the message, spaces to underscores, drop everything else. */
export function codeFromMessage(message: string): string {
  return message
    .toUpperCase()
    .replaceAll(' ', '_')
    .replace(/[^A-Z0-9_]/g, '');
}

/** The error for a catalogue message; `code` only where Better Auth sets one apart from it. */
export function authError(
  refusal: Refusal,
  message: AuthMessage,
  code = codeFromMessage(authMessages[message]),
): AppError {
  return new AppError(refusal, code, authMessages[message]);
}

/** A banned user's sign-in: Better Auth's admin plugin names this code instead of deriving it. */
export function bannedUserError(): AppError {
  return new AppError('forbidden', 'BANNED_USER', authMessages.BANNED_USER);
}

/**
 * An answer with a status and no body, which is what Better Auth sends when a route needs a
 * session and there is none (401) — its client then reports just the status.
 */
export class EmptyAnswer extends AppError {
  override name = 'EmptyAnswer';

  constructor(refusal: Refusal) {
    super(refusal, '', '');
  }
}
