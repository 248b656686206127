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
  session: { id: string; activeOrganizationId: string | null; expiresAt: string };
  user: User;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  createdAt: string;
}

const auth = (path: string) => `/api/auth${path}`;

/** Where mailed links (verification, reset) bring the user back to. */
const here = (path: string) => new URL(path, window.location.origin).href;

/** The signed-in session, or null when signed out. */
export const getSession = (signal?: AbortSignal) =>
  api.get<Session | null>(auth('/get-session'), { signal });

export const signIn = (body: { email: string; password: string; rememberMe?: boolean }) =>
  api.post<{ user: User }>(auth('/sign-in/email'), { ...body, callbackURL: here('/') });

export const signUp = (body: { name: string; email: string; password: string }) =>
  api.post<{ user: User; token: string | null }>(auth('/sign-up/email'), {
    ...body,
    callbackURL: here('/'),
  });

export const signOut = () => api.post<{ success: boolean }>(auth('/sign-out'));

/** Starts a provider's OAuth flow; the answer's `url` is where the browser goes next. */
export const signInSocial = (provider: string) =>
  api.post<{ url: string }>(auth('/sign-in/social'), {
    provider,
    callbackURL: here('/'),
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

export const sendVerificationEmail = (email: string) =>
  api.post<{ status: boolean }>(auth('/send-verification-email'), {
    email,
    callbackURL: here('/'),
  });

export const listOrganizations = (signal?: AbortSignal) =>
  api.get<Organization[]>(auth('/organization/list'), { signal });

/** Creates an organization and makes it the session's active one. */
export const createOrganization = (body: { name: string; slug: string }) =>
  api.post<Organization>(auth('/organization/create'), body);

export const setActiveOrganization = (organizationId: string) =>
  api.post<Organization>(auth('/organization/set-active'), { organizationId });

/**
 * Social providers the server has credentials for. No endpoint tells the browser, so the build
 * records the providers whose `<PROVIDER>_CLIENT_ID` was set where it ran (vite.config.ts).
 */
export const socialProviders: readonly string[] = __SOCIAL_PROVIDERS__;
