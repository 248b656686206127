import { hashKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext } from 'react';
import {
  getSession,
  type Organization,
  type Session,
  setActiveOrganization,
  signOut,
} from '../api/auth';

export const sessionQueryKey = ['auth', 'session'] as const;
export const organizationsQueryKey = ['auth', 'organizations'] as const;

export const useSession = () =>
  useQuery({ queryKey: sessionQueryKey, queryFn: ({ signal }) => getSession(signal) });

export interface SignedIn {
  session: Session;
  organizations: Organization[];
  /** The organization the /v1 API acts for. */
  organization: Organization;
}

export const SignedInContext = createContext<SignedIn | null>(null);

/** The signed-in user and active organization; only inside the signed-in shell. */
export function useSignedIn(): SignedIn {
  const signedIn = useContext(SignedInContext);
  if (!signedIn) throw new Error('useSignedIn is used outside the signed-in dashboard');
  return signedIn;
}

/**
 * Makes another organization the active one. Every cached answer belonged to the previous one,
 * so all queries start over (reset, not just refetched: nothing of the old one stays on screen).
 */
export function useSwitchOrganization() {
  const queryClient = useQueryClient();
  return useCallback(
    async (organizationId: string) => {
      await setActiveOrganization(organizationId);
      await queryClient.resetQueries();
    },
    [queryClient],
  );
}

/** Ends the session; the signed-out pages take over. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    await signOut();
    queryClient.setQueryData(sessionQueryKey, null);
    // Nothing of the account stays in memory for whoever uses the browser next.
    queryClient.removeQueries({
      predicate: (query) => query.queryHash !== hashKey(sessionQueryKey),
    });
  }, [queryClient]);
}

/**
 * Where a visitor sent to sign in goes once signed in: the sign-in page's `next`, when it is a
 * path of this site (never another site's address), or home.
 */
export function returnPathOf(search: string): string {
  const next = new URLSearchParams(search).get('next') ?? '';
  return /^\/(?![/\\])/.test(next) ? next : '/';
}

/** A signed-out page (`/sign-in`) that leads back to `returnTo` once signed in. */
export const withReturn = (path: string, returnTo: string) =>
  returnTo === '/' ? path : `${path}?${new URLSearchParams({ next: returnTo })}`;
