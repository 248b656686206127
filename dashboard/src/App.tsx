import { useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect } from 'react';
import { listOrganizations, type Session } from './api/auth';
import { CreateOrganizationPage } from './auth/CreateOrganizationPage';
import {
  organizationsQueryKey,
  returnPathOf,
  SignedInContext,
  useSession,
  useSwitchOrganization,
  withReturn,
} from './auth/session';
import { AppShell } from './components/AppShell';
import { ErrorMessage } from './components/ErrorMessage';
import { routes } from './pages';
import { matchPath, navigate, usePathname, useSearch } from './router';

const SignedOutApp = lazy(() => import('./auth/SignedOutApp.tsx'));
const AcceptInvitationPage = lazy(() => import('./auth/AcceptInvitationPage.tsx'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage.tsx'));

/**
 * Paths a signed-out visitor may open; any other sends them to sign in first, and back to it
 * afterwards.
 */
const signedOutPaths = ['/sign-in', '/sign-up', '/forgot-password', '/reset-password'];

/** The mailed invitation link's page: answered before joining any organization. */
const invitationPath = '/accept-invitation/:id';

export function App() {
  const session = useSession();
  const pathname = usePathname();
  const search = useSearch();
  const signedOut = session.isSuccess && !session.data;
  const onSignedOutPage = signedOutPaths.includes(pathname);
  const invitation = matchPath(invitationPath, pathname);

  useEffect(() => {
    if (signedOut && !onSignedOutPage) {
      navigate(withReturn('/sign-in', `${pathname}${search}`), { replace: true });
    }
    if (session.data && onSignedOutPage) navigate(returnPathOf(search), { replace: true });
  }, [signedOut, onSignedOutPage, session.data, pathname, search]);

  if (session.isError) {
    return (
      <FullPage>
        <ErrorMessage title="Could not reach the server" error={session.error}>
          <button type="button" className="button" onClick={() => session.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      </FullPage>
    );
  }
  if (session.isPending) return <FullPage>Loading…</FullPage>;
  if (!session.data) {
    return (
      <Suspense fallback={<FullPage>Loading…</FullPage>}>
        <SignedOutApp />
      </Suspense>
    );
  }
  if (invitation) {
    return (
      <Suspense fallback={<FullPage>Loading…</FullPage>}>
        <AcceptInvitationPage params={invitation} />
      </Suspense>
    );
  }
  return <SignedInApp session={session.data} />;
}

/** The user's organizations decide what comes next: create one, pick one, or the dashboard. */
function SignedInApp({ session }: { session: Session }) {
  const organizations = useQuery({
    queryKey: organizationsQueryKey,
    queryFn: ({ signal }) => listOrganizations(signal),
  });
  const switchOrganization = useSwitchOrganization();
  const activeId = session.session.activeOrganizationId;
  const active = organizations.data?.find((organization) => organization.id === activeId);
  const first = organizations.data?.[0];

  // Signed in without an active organization (or with one since left): act for the first.
  useEffect(() => {
    if (!active && first) void switchOrganization(first.id);
  }, [active, first, switchOrganization]);

  if (organizations.isError) {
    return (
      <FullPage>
        <ErrorMessage title="Could not load your organizations" error={organizations.error} />
      </FullPage>
    );
  }
  if (!organizations.data || (!active && first)) return <FullPage>Loading…</FullPage>;
  if (!active) return <CreateOrganizationPage />;
  return (
    <SignedInContext.Provider
      value={{ session, organizations: organizations.data, organization: active }}
    >
      <AppShell>
        <CurrentPage />
      </AppShell>
    </SignedInContext.Provider>
  );
}

function CurrentPage() {
  const pathname = usePathname();
  const found = routes
    .map((route) => ({ route, params: matchPath(route.path, pathname) }))
    .find((candidate) => candidate.params);
  const title = found?.route.title ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · Tollgate`;
  }, [title]);
  const Page = found?.route.page ?? NotFoundPage;
  return (
    // Keyed by path: a page's state (open dialogs, typed values) does not leak into the next.
    <Suspense key={pathname} fallback={<p className="muted">Loading…</p>}>
      <Page params={found?.params ?? {}} />
    </Suspense>
  );
}

function FullPage({ children }: { children: ReactNode }) {
  return (
    <main className="auth-layout" aria-busy="true">
      <div className="auth-card">{children}</div>
    </main>
  );
}
