/**
 * The signed-in user's own account under /api/auth, as Better Auth's client calls it: the
 * profile, the email address, the password, the sessions, the linked provider accounts and
 * deleting the account.
 */
import { auth, here, providerName } from '../../api/auth';
import { api } from '../../api/client';

/** One of the user's sessions; `token` is the id for any but the one asking (only hashes are kept). */
export interface UserSession {
  id: string;
  token: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  ipAddress: string | null;
  userAgent: string | null;
  impersonatedBy: string | null;
}

/** A way the user signs in: `credential` (email and password) or a social provider. */
export interface LinkedAccount {
  id: string;
  providerId: string;
  /** The provider's id of the account. */
  accountId: string;
  createdAt: string;
  scopes: string[];
}

export const accountKeys = {
  sessions: ['auth', 'sessions'] as const,
  linkedAccounts: ['auth', 'linked-accounts'] as const,
  providers: ['auth', 'providers'] as const,
};

export const accountApi = {
  updateProfile: (body: { name: string; image: string | null }) =>
    api.post<{ status: boolean }>(auth('/update-user'), body),

  /** Unverified addresses change at once; a verified one confirms by mail first. */
  changeEmail: (newEmail: string) =>
    api.post<{ status: boolean }>(auth('/change-email'), {
      newEmail,
      callbackURL: here('/account'),
    }),

  changePassword: (body: {
    currentPassword: string;
    newPassword: string;
    revokeOtherSessions: boolean;
  }) => api.post<{ token: string | null }>(auth('/change-password'), body),

  sessions: (signal?: AbortSignal) => api.get<UserSession[]>(auth('/list-sessions'), { signal }),
  revokeSession: (token: string) =>
    api.post<{ status: boolean }>(auth('/revoke-session'), { token }),
  revokeOtherSessions: () => api.post<{ status: boolean }>(auth('/revoke-other-sessions')),

  linkedAccounts: (signal?: AbortSignal) =>
    api.get<LinkedAccount[]>(auth('/list-accounts'), { signal }),
  /** Starts the provider's OAuth flow; the answer's `url` is where the browser goes next. */
  linkSocial: (provider: string) =>
    api.post<{ url: string }>(auth('/link-social'), {
      provider,
      callbackURL: here('/account/linked-accounts'),
      errorCallbackURL: here('/account/linked-accounts'),
      disableRedirect: true,
    }),
  unlink: (account: Pick<LinkedAccount, 'providerId' | 'accountId'>) =>
    api.post<{ status: boolean }>(auth('/unlink-account'), account),

  /**
   * Better Auth's delete-user: deletes at once (`User deleted`), or mails a link that does
   * (`Verification email sent`), as the server is configured. The link leads to `/sign-in`.
   */
  deleteAccount: (password: string) =>
    api.post<{ success: boolean; message: string }>(auth('/delete-user'), {
      password: password || undefined,
      callbackURL: here('/sign-in?deleted=1'),
    }),
};

/** How a way of signing in reads: `Email and password`, `GitHub`. */
export const signInMethodName = (providerId: string) =>
  providerId === 'credential' ? 'Email and password' : providerName(providerId);
