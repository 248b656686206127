import { StrictMode, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { PortalPage } from '../portal/PortalPage';
import { type PortalRoute, portalRoute } from '../portal/paths';
import type { CheckoutPublic } from './api';
import { CheckoutPage } from './CheckoutPage';
import { type CheckoutNotice, CheckoutUnavailable } from './CheckoutUnavailable';
import { ConfirmationPage } from './ConfirmationPage';
import './checkout.css';

/** What the server tells the page (see api/checkout-page.ts). */
interface PageConfig {
  stripePublishableKey: string | null;
  /** Whose checkout the address names, where a new one starts, and why it cannot be used. */
  notice?: CheckoutNotice;
}

function readConfig(): PageConfig {
  const element = document.getElementById('tollgate-checkout-config');
  try {
    return { stripePublishableKey: null, ...JSON.parse(element?.textContent ?? '{}') };
  } catch {
    return { stripePublishableKey: null };
  }
}

type Route =
  | { page: 'checkout'; clientSecret: string }
  | { page: 'confirmation'; clientSecret: string }
  | ({ page: 'portal' } & PortalRoute)
  | { page: 'unknown' };

function routeOf(pathname: string): Route {
  const portal = portalRoute(pathname, window.location.search);
  if (portal) return { page: 'portal', ...portal };
  const match = /^\/checkout\/([^/]+)(\/confirmation)?\/?$/.exec(pathname);
  if (!match?.[1]) return { page: 'unknown' };
  const clientSecret = decodeURIComponent(match[1]);
  return match[2] ? { page: 'confirmation', clientSecret } : { page: 'checkout', clientSecret };
}

const config = readConfig();

function CheckoutApp() {
  const [route, setRoute] = useState(() => routeOf(window.location.pathname));

  useEffect(() => {
    const onPop = () => setRoute(routeOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const go = useCallback((path: string) => {
    window.history.pushState(null, '', path);
    setRoute(routeOf(path));
    window.scrollTo(0, 0);
  }, []);

  const onSucceeded = useCallback(
    (checkout: CheckoutPublic) => {
      const confirmation = `/checkout/${encodeURIComponent(checkout.client_secret)}/confirmation`;
      const target = new URL(checkout.success_url, window.location.href);
      // The default success URL is this page's own confirmation: shown without a reload (its
      // origin is the configured public URL, which a proxy may present differently).
      if (target.pathname === confirmation) {
        go(confirmation);
      } else {
        window.location.assign(target.href);
      }
    },
    [go],
  );

  const notice = config.notice;
  // An expired or unknown checkout, a dead checkout link: the server said so with the page.
  if (notice?.unavailable) {
    return (
      <CheckoutUnavailable
        why={notice.unavailable}
        organizationName={notice.organizationName}
        startOverUrl={notice.startOverUrl}
      />
    );
  }
  if (route.page === 'checkout') {
    return (
      <CheckoutPage
        key={route.clientSecret}
        clientSecret={route.clientSecret}
        notice={notice ?? null}
        stripePublishableKey={config.stripePublishableKey}
        onSucceeded={onSucceeded}
      />
    );
  }
  if (route.page === 'confirmation') {
    return (
      <ConfirmationPage
        clientSecret={route.clientSecret}
        onRetry={() => go(`/checkout/${encodeURIComponent(route.clientSecret)}`)}
      />
    );
  }
  if (route.page === 'portal') {
    return <PortalPage route={route} stripePublishableKey={config.stripePublishableKey} />;
  }
  return (
    <main className="checkout-closed">
      <h1>Page not found</h1>
    </main>
  );
}

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('checkout.html is missing the #root element');

createRoot(rootElement).render(
  <StrictMode>
    <CheckoutApp />
  </StrictMode>,
);
