/**
 * The dashboard's router: the browser's history API, `:name` path parameters, and links that
 * mark the current page (aria-current). Page state that a reload must keep (a table's page,
 * sorting, filters) lives in the URL query: `useQueryState`.
 *
 * Adding a page:
 *   1. Write `pages/<area>/<Name>Page.tsx` with a default export taking `{ params }` (PageProps).
 *   2. Add one line to `routes` in pages.tsx:
 *        { path: '/orders/:id', title: 'Order', page: lazy(() => import('./pages/orders/OrderPage.tsx')) },
 *      and, for a top-level section, set `nav` on the list page's entry (pages.tsx `navSections`).
 * Pages are lazy-loaded, so each stays out of the initial bundle.
 */
import {
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
  useCallback,
  useSyncExternalStore,
} from 'react';

export type PathParams = Record<string, string>;

export interface PageProps {
  params: PathParams;
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** Goes to a same-origin path (`/orders?page=2`) without reloading the page. */
export function navigate(to: string, { replace = false }: { replace?: boolean } = {}) {
  if (to === `${window.location.pathname}${window.location.search}`) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

export const usePathname = () => useSyncExternalStore(subscribe, () => window.location.pathname);
export const useSearch = () => useSyncExternalStore(subscribe, () => window.location.search);

/** The parameters of `pattern` (`/orders/:id`) in `pathname`, or null when it does not match. */
export function matchPath(pattern: string, pathname: string): PathParams | null {
  const expected = pattern.split('/').filter(Boolean);
  const actual = pathname.split('/').filter(Boolean);
  if (expected.length !== actual.length) return null;
  const params: PathParams = {};
  for (const [index, part] of expected.entries()) {
    const value = actual[index] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

/**
 * Values kept in the URL query, read as a plain object and written by merging: `null` or `''`
 * removes a name. Writing replaces the history entry, so Back leaves the page rather than
 * stepping through every filter typed.
 */
export function useQueryState(): [
  URLSearchParams,
  (changes: Record<string, string | null>) => void,
] {
  const search = useSearch();
  const update = useCallback((changes: Record<string, string | null>) => {
    const params = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') params.delete(name);
      else params.set(name, value);
    }
    const text = params.toString();
    navigate(`${window.location.pathname}${text ? `?${text}` : ''}`, { replace: true });
  }, []);
  return [new URLSearchParams(search), update];
}

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  /** `prefix`: also current on pages below `to` (a section link stays lit on its detail pages). */
  current?: 'exact' | 'prefix';
  children: ReactNode;
}

/** An ordinary link (open in a new tab works) that navigates in place on a plain click. */
export function Link({ to, current = 'exact', children, onClick, ...rest }: LinkProps) {
  const pathname = usePathname();
  const target = to.split('?')[0] ?? to;
  const isCurrent =
    pathname === target ||
    (current === 'prefix' && target !== '/' && pathname.startsWith(`${target}/`));
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || event.button !== 0 || modified || rest.target) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} aria-current={isCurrent ? 'page' : undefined} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
