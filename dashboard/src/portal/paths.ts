/** What a portal address asks for: an organization's sign-in, and a subscription or order to open. */
export interface PortalRoute {
  /** The organization of `/portal/<slug>`; null for the portal of a session. */
  organizationSlug: string | null;
  focus: PortalFocus | null;
}

export interface PortalFocus {
  section: 'subscriptions' | 'orders';
  id: string;
}

/**
 * The portal's paths: `/portal` (a seller's session link), `/portal/sign-in` (where sign-in
 * links land), `/portal/<slug>` (an organization's portal, where its customers sign in), and
 * `/portal/subscriptions/<id>` or `/portal/orders/<id>` (what a customer mail is about, also as
 * `?subscription_id=` or `?order_id=`). Null when the path is none of them.
 */
export function portalRoute(pathname: string, search = ''): PortalRoute | null {
  const match = /^\/portal(?:\/([^/]+)(?:\/([^/]+))?)?\/?$/.exec(pathname);
  if (!match) return null;
  const [, first, second] = match;
  const query = new URLSearchParams(search);
  const subscriptionId = query.get('subscription_id');
  const orderId = query.get('order_id');
  const focus: PortalFocus | null = subscriptionId
    ? { section: 'subscriptions', id: subscriptionId }
    : orderId
      ? { section: 'orders', id: orderId }
      : null;
  if (!first) return { organizationSlug: null, focus };
  if (second) {
    if (first !== 'subscriptions' && first !== 'orders') return null;
    return { organizationSlug: null, focus: { section: first, id: decodeURIComponent(second) } };
  }
  if (first === 'sign-in') return { organizationSlug: null, focus };
  return { organizationSlug: decodeURIComponent(first), focus };
}
