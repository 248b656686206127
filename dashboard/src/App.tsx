import { useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect } from 'react';
import { Outlet, type RouteObject, useOutletContext, useParams } from 'react-router';
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
import { type Route, routes } from './pages';
import { createDashboardRouter, navigate, type PathParams, usePathname, useSearch } from './router';

const SignedOutApp = lazy(() => import('./auth/SignedOutApp.tsx'));
const AcceptInvitationPage = lazy(() => import('./auth/AcceptInvitationPage.tsx'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage.tsx'));

/**
 * Paths a signed-out visitor may open; any other sends them to sign in first, and back to it
 * afterwards.
 */
const signedOutPaths = ['/sign-in', '/sign-up', '/forgot-password', '/reset-password'];

/**
 * The router: the session gate (App) around the invitation page, which is answered before
 * joining any organization, and the dashboard's pages (pages.tsx) in the signed-in shell.
 */
export const router = createDashboardRouter([
  {
    Component: App,
    children: [
      {
        path: '/accept-invitation/:id',
        element: <RoutePage title="Invitation" page={AcceptInvitationPage} />,
      },
      {
        Component: SignedInApp,
        children: [
          ...routes.map(
            (route): RouteObject => ({
              path: route.path,
              element: <RoutePage title={route.title} page={route.page} />,
            }),
          ),
          { path: '*', element: <RoutePage title="Not found" page={NotFoundPage} /> },
        ],
      },
    ],
  },
]);

function App() {
  const session = useSession();
  const pathname = usePathname();
  const search = useSearch();
  const signedOut = session.isSuccess && !session.data;
  const onSignedOutPage = signedOutPaths.includes(pathname);

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
  return <Outlet context={session.data} />;
}

/** The user's organizations decide what comes next: create one, pick one, or the dashboard. */
function SignedInApp() {
  const session = useOutletContext<Session>();
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
        <Outlet />
      </AppShell>
    </SignedInContext.Provider>
  );
}

/** One page: its document title, its path parameters, and a loading line while it loads. */
function RoutePage({ title, page: Page }: Pick<Route, 'title' | 'page'>) {
  const pathname = usePathname();
  const params = useParams() as PathParams;
  useEffect(() => {
    document.title = `${title} · Tollgate`;
  }, [title]);
  return (
    // Keyed by path: a page's state (open dialogs, typed values) does not leak into the next.
    <Suspense key={pathname} fallback={<p className="muted">Loading…</p>}>
      <Page params={params} />
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
