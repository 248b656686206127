import { ConfigurationError, type RuntimeConfig } from '../config/env.ts';
import type { OrganizationLimits } from './organization/limits.ts';
import {
  type RateLimitSettings,
  rateLimitSettings,
  type SignInThrottleSettings,
  signInThrottleSettings,
} from './rate-limit-settings.ts';

const day = 86_400;

/** Everything /api/auth decides by configuration, with Better Auth's defaults. */
export interface AuthSettings {
  /** Signs the cookies, the cookie cache and OAuth state (TOLLGATE_AUTH_SECRET). */
  secret: string;
  /** Served over HTTPS: cookies are Secure and `__Secure-` prefixed. */
  secure: boolean;
  /** Origins trusted for cookie requests and redirects: the public URL's and the configured ones. */
  trustedOrigins: string[];
  requireEmailVerification: boolean;
  /** Admin plugin: these users hold every admin permission whatever their role. */
  adminUserIds: string[];
  /** Admin plugin: lifetime of a session an admin opens as another user. */
  impersonationSessionSeconds: number;
  /**
   * delete-user: `mail` asks for the mailed link's token first (Better Auth with
   * `deleteUser.sendDeleteAccountVerification`), `none` deletes at once (without it).
   */
  deleteUserVerification: 'mail' | 'none';
  /** get-session answers from a signed cookie copy while it is younger than `maxAgeSeconds`. */
  cookieCache: { enabled: boolean; maxAgeSeconds: number };
  /** Limits of sign-in, sign-up and account mail per IP and per account (rate-limit-settings.ts). */
  rateLimit: RateLimitSettings;
  /** Failed sign-ins per account and address, and the slowdown per account (same file). */
  signInThrottle: SignInThrottleSettings;
  password: { minLength: number; maxLength: number };
  /** Organizations per user and members per organization (organization/limits.ts). */
  organizations: OrganizationLimits;
  /** Better Auth's organization `teams` options (unset maximums: no limit). */
  teams: {
    maximumTeams: number | undefined;
    maximumMembersPerTeam: number | undefined;
    /** False: an organization's last team cannot be removed. */
    allowRemovingAllTeams: boolean;
  };
  /** Better Auth's invitationExpiresIn and invitationLimit, and Tollgate's reminder lead. */
  invitations: {
    lifetimeSeconds: number;
    /** The reminder goes this long before expiry; 0, or a shorter lifetime, sends none. */
    reminderSeconds: number;
    /** Pending, unexpired invitations an organization may have at once. */
    limit: number;
  };
  session: {
    expiresInSeconds: number;
    /** A session older than this since its last refresh is extended on use. */
    updateAgeSeconds: number;
    /** Sensitive calls need a session signed in more recently than this (isFreshSession). */
    freshAgeSeconds: number;
    /** Lifetime of a session signed in with rememberMe false. */
    shortLivedSeconds: number;
  };
}

export function authSettings(config: RuntimeConfig): AuthSettings {
  const { secret } = config.auth;
  if (!secret) {
    throw new ConfigurationError(
      'TOLLGATE_AUTH_SECRET must be set (a random string of at least 32 characters)',
    );
  }
  const publicUrl = new URL(config.api.publicUrl);
  return {
    secret,
    secure: publicUrl.protocol === 'https:',
    trustedOrigins: [...new Set([publicUrl.origin, ...config.auth.trustedOrigins])],
    requireEmailVerification: config.auth.requireEmailVerification,
    adminUserIds: config.auth.adminUserIds,
    impersonationSessionSeconds: 60 * 60,
    deleteUserVerification: config.auth.deleteUserVerification,
    cookieCache: { enabled: config.auth.sessionCookieCache, maxAgeSeconds: 300 },
    rateLimit: rateLimitSettings(config.auth.rateLimit),
    signInThrottle: signInThrottleSettings(config.auth.rateLimit),
    password: { minLength: 8, maxLength: 128 },
    organizations: {
      organizationLimit: config.auth.organizationLimit,
      membershipLimit: config.auth.membershipLimit,
    },
    teams: config.auth.teams,
    invitations: config.auth.invitations,
    session: {
      expiresInSeconds: 7 * day,
      updateAgeSeconds: day,
      freshAgeSeconds: day,
      shortLivedSeconds: day,
    },
  };
}
