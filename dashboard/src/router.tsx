/**
 * The dashboard's router: React Router's data router (browser history, `:name` path
 * parameters), wrapped in the few names pages use, so they need not know the library: links
 * that mark the current page (aria-current), `navigate` from anywhere (event handlers, a
 * finished OAuth round trip), and `useQueryState` for page state a reload must keep (a table's
 * page, sorting, filters) in the URL query.
 *
 * Adding a page:
 *   1. Write `pages/<area>/<Name>Page.tsx` with a default export taking `{ params }` (PageProps;
 *      `PageProps<'/orders/:id'>` types `params.id`).
 *   2. Add one line to `routes` in pages.tsx:
 *        { path: '/orders/:id', title: 'Order', page: lazy(() => import('./pages/orders/OrderPage.tsx')) },
 *      and, for a top-level section, set `nav` on the list page's entry (pages.tsx `navSections`).
 * Pages are lazy-loaded, so each stays out of the initial bundle. App.tsx turns `routes` into
 * React Router's route objects.
 */
import { type ReactNode, useCallback } from 'react';
import {
  createBrowserRouter,
  NavLink,
  type NavLinkProps,
  type PathParam,
  type RouteObject,
  useLocation,
  useSearchParams,
} from 'react-router';

/** The parameters of a path pattern: `PathParams<'/workflows/:kind/:entityId'>` has both. */
export type PathParams<Path extends string = string> = string extends Path
  ? Record<string, string>
  : Record<PathParam<Path>, string>;

export interface PageProps<Path extends string = string> {
  params: PathParams<Path>;
}

type DashboardRouter = ReturnType<typeof createBrowserRouter>;
let dashboardRouter: DashboardRouter | undefined;

/** The page's one router; `navigate` goes through it. */
export function createDashboardRouter(routes: RouteObject[]): DashboardRouter {
  dashboardRouter = createBrowserRouter(routes);
  return dashboardRouter;
}

/**
 * Goes to a same-origin path (`/orders?page=2`) without reloading the page. `flushSync` renders
 * the new location at once instead of in a transition (for query changes: see useQueryState).
 */
export function navigate(
  to: string,
  { replace = false, flushSync = false }: { replace?: boolean; flushSync?: boolean } = {},
) {
  if (!dashboardRouter) throw new Error('navigate called before the dashboard router exists');
  void dashboardRouter.navigate(to, { replace, flushSync });
}

export const usePathname = () => useLocation().pathname;
export const useSearch = () => useLocation().search;

/**
 * Values kept in the URL query, read as a plain object and written by merging: `null` or `''`
 * removes a name. Writing replaces the history entry, so Back leaves the page rather than
 * stepping through every filter typed.
 *
 * Writes merge into the address bar's query, not the one this render saw, and render at once:
 * React Router's own setter merges into its render's query and renders in a transition, so a
 * second filter changed before that render committed wrote over the first.
 */
export function useQueryState(): [
  URLSearchParams,
  (changes: Record<string, string | null>) => void,
] {
  const [query] = useSearchParams();
  const update = useCallback((changes: Record<string, string | null>) => {
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(name);
      else next.set(name, value);
    }
    const text = next.toString();
    navigate(`${window.location.pathname}${text ? `?${text}` : ''}`, {
      replace: true,
      flushSync: true,
    });
  }, []);
  return [query, update];
}

interface LinkProps extends Omit<NavLinkProps, 'to' | 'end' | 'children' | 'className' | 'style'> {
  to: string;
  /** `prefix`: also current on pages below `to` (a section link stays lit on its detail pages). */
  current?: 'exact' | 'prefix';
  className?: string;
  children: ReactNode;
}

/**
 * An ordinary link (open in a new tab works) that navigates in place on a plain click and
 * carries aria-current="page" on the page it leads to. No `active` class: styles key on
 * aria-current.
 */
export function Link({ to, current = 'exact', className, ...rest }: LinkProps) {
  return <NavLink to={to} end={current === 'exact'} className={() => className} {...rest} />;
}
