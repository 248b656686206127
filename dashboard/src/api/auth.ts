/**
 * The Better Auth-compatible endpoints under /api/auth the dashboard uses: the session, email
 * and password accounts, and the organizations the signed-in user belongs to. The /v1 API acts
 * for the session's active organization, so switching it changes every answer.
 */
import { api } from './client';

export interface User {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
}

export interface Session {
  session: {
    id: string;
    activeOrganizationId: string | null;
    expiresAt: string;
    /** The admin acting as the user, while they impersonate them. */
    impersonatedBy: string | null;
  };
  user: User;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  createdAt: string;
}

/** An /api/auth path. */
export const auth = (path: string) => `/api/auth${path}`;

/** Where mailed links (verification, reset) bring the user back to. */
export const here = (path: string) => new URL(path, window.location.origin).href;

/** The signed-in session, or null when signed out. */
export const getSession = (signal?: AbortSignal) =>
  api.get<Session | null>(auth('/get-session'), { signal });

/** `returnTo`: the page the verification link (when the server mails one) opens after. */
export const signIn = (
  body: { email: string; password: string; rememberMe?: boolean },
  returnTo = '/',
) => api.post<{ user: User }>(auth('/sign-in/email'), { ...body, callbackURL: here(returnTo) });

export const signUp = (body: { name: string; email: string; password: string }, returnTo = '/') =>
  api.post<{ user: User; token: string | null }>(auth('/sign-up/email'), {
    ...body,
    callbackURL: here(returnTo),
  });

export const signOut = () => api.post<{ success: boolean }>(auth('/sign-out'));

/** Starts a provider's OAuth flow; the answer's `url` is where the browser goes next. */
export const signInSocial = (provider: string, returnTo = '/') =>
  api.post<{ url: string }>(auth('/sign-in/social'), {
    provider,
    callbackURL: here(returnTo),
    errorCallbackURL: here('/sign-in'),
    disableRedirect: true,
  });

export const requestPasswordReset = (email: string) =>
  api.post<{ status: boolean }>(auth('/request-password-reset'), {
    email,
    redirectTo: here('/reset-password'),
  });

export const resetPassword = (body: { token: string; newPassword: string }) =>
  api.post<{ status: boolean }>(auth('/reset-password'), body);

export const sendVerificationEmail = (email: string, returnTo = '/') =>
  api.post<{ status: boolean }>(auth('/send-verification-email'), {
    email,
    callbackURL: here(returnTo),
  });

export const listOrganizations = (signal?: AbortSignal) =>
  api.get<Organization[]>(auth('/organization/list'), { signal });

/** Creates an organization and makes it the session's active one. */
export const createOrganization = (body: { name: string; slug: string }) =>
  api.post<Organization>(auth('/organization/create'), body);

export const setActiveOrganization = (organizationId: string) =>
  api.post<Organization>(auth('/organization/set-active'), { organizationId });

/** An invitation as its invitee sees it: to whom, from whom, and for which role. */
export interface ReceivedInvitation {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'rejected' | 'canceled';
  expiresAt: string;
  inviterEmail: string;
}

/** Only the invitee may read it, and only while it is open. */
export const getInvitation = (id: string, signal?: AbortSignal) =>
  api.get<ReceivedInvitation>(auth('/organization/get-invitation'), { query: { id }, signal });

/**
 * `token`, from the mailed link, proves the invitee reads mail at the invited address; without
 * it the server accepts only a verified email.
 */
export const acceptInvitation = (body: { invitationId: string; token?: string }) =>
  api.post<{ invitation: { status: string } }>(auth('/organization/accept-invitation'), body);

export const rejectInvitation = (body: { invitationId: string; token?: string }) =>
  api.post<{ invitation: { status: string } }>(auth('/organization/reject-invitation'), body);

/** The social providers the server has credentials for: `github`, `google`, `discord`. */
export const getSocialProviders = (signal?: AbortSignal) =>
  api.get<{ providers: string[] }>(auth('/providers'), { signal });

export const socialProvidersQueryKey = ['auth', 'providers'] as const;

const providerNames: Record<string, string> = {
  github: 'GitHub',
  google: 'Google',
  discord: 'Discord',
};

/** A provider's name as people know it. */
export const providerName = (id: string) => providerNames[id] ?? id;
