/**
 * The customer's portal session, kept for this browser tab only (sessionStorage): a session
 * token is a credential, so it neither outlives the tab nor stays in the address bar.
 */
const storageKey = 'tollgate.portal.session';

export interface PortalSession {
  token: string;
  /** The organization the customer signed in to, to come back to its sign-in page. */
  organizationSlug: string | null;
}

export function storedSession(): PortalSession | null {
  try {
    const stored = sessionStorage.getItem(storageKey);
    return stored ? (JSON.parse(stored) as PortalSession) : null;
  } catch {
    return null;
  }
}

export function storeSession(session: PortalSession) {
  try {
    sessionStorage.setItem(storageKey, JSON.stringify(session));
  } catch {
    // Storage may be disabled (private mode): the session then lasts as long as the page.
  }
}

export function forgetSession() {
  try {
    sessionStorage.removeItem(storageKey);
  } catch {
    // Nothing was stored.
  }
}

/** Takes `names` out of the address bar (tokens from a link), answering their values. */
export function takeFromAddress(...names: string[]): Record<string, string | null> {
  const url = new URL(window.location.href);
  const taken = Object.fromEntries(names.map((name) => [name, url.searchParams.get(name)]));
  if (names.some((name) => url.searchParams.has(name))) {
    for (const name of names) url.searchParams.delete(name);
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return taken;
}
