import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { CheckoutApiError } from '../checkout/api';
import { authenticateSignIn, getOrganization, portalApi } from './api';
import { AfterAuthentication } from './authentication';
import { Benefits } from './Benefits';
import { BillingDetails } from './BillingDetails';
import { Downloads } from './Downloads';
import { LicenseKeys } from './LicenseKeys';
import { Orders } from './Orders';
import { Overview } from './Overview';
import { PaymentMethods } from './PaymentMethods';
import type { PortalFocus, PortalRoute } from './paths';
import { PortalContext, type PortalContextValue } from './resource';
import { SignIn } from './SignIn';
import { Subscriptions } from './Subscriptions';
import {
  forgetSession,
  type PortalSession,
  storedSession,
  storeSession,
  takeFromAddress,
} from './session';
import { Usage } from './Usage';
import './portal.css';

const sections = [
  { id: 'overview', label: 'Overview' },
  { id: 'subscriptions', label: 'Subscriptions' },
  { id: 'orders', label: 'Orders' },
  { id: 'payment-methods', label: 'Payment methods' },
  { id: 'usage', label: 'Usage' },
  { id: 'license-keys', label: 'License keys' },
  { id: 'downloads', label: 'Downloads' },
  { id: 'benefits', label: 'Benefits' },
  { id: 'billing', label: 'Billing details' },
] as const;

type SectionId = (typeof sections)[number]['id'];

const sectionOfHash = (hash: string): SectionId =>
  sections.find((section) => `#${section.id}` === hash)?.id ?? 'overview';

/** The section the address's hash names, following the customer's clicks and Back. */
function useSection(initial: SectionId | null) {
  const [section, setSection] = useState<SectionId>(
    () => initial ?? sectionOfHash(window.location.hash),
  );
  useEffect(() => {
    const onHash = () => {
      setSection(sectionOfHash(window.location.hash));
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return section;
}

/** What the address brought: a session (seller's portal link), a sign-in link's token, a target. */
interface Arrival {
  session: PortalSession | null;
  signInToken: string | null;
  linkError: string | null;
}

function arrive(organizationSlug: string | null): Arrival {
  const taken = takeFromAddress('customer_session_token', 'token', 'error');
  const fromLink = taken.customer_session_token;
  if (fromLink) storeSession({ token: fromLink, organizationSlug });
  const stored = storedSession();
  // A session of another organization's portal does not open this one.
  const session =
    stored &&
    (!organizationSlug || !stored.organizationSlug || stored.organizationSlug === organizationSlug)
      ? stored
      : null;
  return {
    session,
    signInToken: taken.token ?? null,
    linkError: taken.error ?? null,
  };
}

interface PortalPageProps {
  route: PortalRoute;
  stripePublishableKey: string | null;
}

/**
 * The hosted customer portal: signing in by email link, then the customer's subscriptions,
 * orders, cards, license keys, downloads, benefits and billing details.
 */
export function PortalPage({ route, stripePublishableKey }: PortalPageProps) {
  const { organizationSlug, focus } = route;
  const [arrival] = useState(() => arrive(organizationSlug));
  const [session, setSession] = useState<PortalSession | null>(arrival.session);
  const [signingIn, setSigningIn] = useState(Boolean(arrival.signInToken));
  const [reason, setReason] = useState<string | null>(null);
  // Where to sign in again: this page's organization, else the one the session was learnt to be.
  const [signInSlug, setSignInSlug] = useState(organizationSlug);

  // A sign-in link works once: its token is posted once, even when effects run twice.
  const posted = useRef(false);
  useEffect(() => {
    const { signInToken } = arrival;
    if (!signInToken || posted.current) return;
    posted.current = true;
    authenticateSignIn(signInToken).then(
      (opened) => {
        storeSession({ token: opened.token, organizationSlug: null });
        // On to the page the link was for (the API hands out only portal paths).
        window.location.replace(opened.return_to);
      },
      (error) => {
        setReason(
          error instanceof CheckoutApiError && error.status < 500
            ? 'This sign-in link has expired or was already used. Ask for a new one on the sign-in page.'
            : 'Signing in failed. Try again later.',
        );
        setSigningIn(false);
      },
    );
  }, [arrival]);

  const signOut = useCallback(
    (why: string | null) => {
      setSignInSlug(organizationSlug ?? storedSession()?.organizationSlug ?? null);
      forgetSession();
      setReason(why);
      setSession(null);
    },
    [organizationSlug],
  );

  if (signingIn) {
    return (
      <main className="portal-signin" aria-busy="true">
        Signing you in…
      </main>
    );
  }
  if (!session) {
    if (signInSlug) return <SignIn organizationSlug={signInSlug} reason={reason} />;
    return (
      <main className="portal-signin">
        <h1>Your purchases</h1>
        <p role="alert">
          {reason ?? 'Open the sign-in link from your email to see your purchases.'}
        </p>
      </main>
    );
  }
  return (
    <SignedInPortal
      session={session}
      arrival={arrival}
      focus={focus}
      stripePublishableKey={stripePublishableKey}
      onSignOut={signOut}
    />
  );
}

interface SignedInPortalProps {
  session: PortalSession;
  arrival: Arrival;
  focus: PortalFocus | null;
  stripePublishableKey: string | null;
  onSignOut: (reason: string | null) => void;
}

function SignedInPortal({
  session,
  arrival,
  focus,
  stripePublishableKey,
  onSignOut,
}: SignedInPortalProps) {
  const section = useSection(focus?.section ?? (arrival.linkError ? 'benefits' : null));
  const focusIn = (shown: PortalFocus['section']) => (focus?.section === shown ? focus.id : null);
  const [header, setHeader] = useState<{ email: string; organization: string | null } | null>(null);
  const onExpired = useCallback(
    () => onSignOut('Your session has expired. Sign in again.'),
    [onSignOut],
  );
  const context = useMemo<PortalContextValue>(
    () => ({ api: portalApi(session.token), onExpired, stripePublishableKey }),
    [session.token, onExpired, stripePublishableKey],
  );

  useEffect(() => {
    const { api } = context;
    const organization = session.organizationSlug
      ? getOrganization(session.organizationSlug).then((found) => found.organization)
      : // A seller's session link names no organization: the customer's orders do.
        api.orders().then((orders) => orders.items[0]?.product.organization ?? null);
    Promise.all([api.customer(), organization.catch(() => null)]).then(
      ([customer, found]) => {
        setHeader({ email: customer.email, organization: found?.name ?? null });
        if (found && !session.organizationSlug) {
          // Remembered, so an expired session leads to this organization's sign-in.
          storeSession({ ...session, organizationSlug: found.slug });
        }
      },
      (error) => {
        if (error instanceof CheckoutApiError && error.status === 401) onExpired();
      },
    );
  }, [context, session, onExpired]);

  return (
    <PortalContext.Provider value={context}>
      <div className="portal">
        <header className="portal-header">
          <div>
            {header?.organization && <p className="organization">{header.organization}</p>}
            <h1>Your purchases</h1>
            {header && <p className="muted portal-email">{header.email}</p>}
          </div>
          <button type="button" className="secondary" onClick={() => onSignOut(null)}>
            Sign out
          </button>
        </header>
        <nav className="portal-nav" aria-label="Portal sections">
          <ul>
            {sections.map(({ id, label }) => (
              <li key={id}>
                <a href={`#${id}`} aria-current={section === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main className="portal-main">
          <AfterAuthentication>
            {section === 'overview' && <Overview sectionHref={(id) => `#${id}`} />}
            {section === 'subscriptions' && <Subscriptions focusId={focusIn('subscriptions')} />}
            {section === 'orders' && <Orders focusId={focusIn('orders')} />}
            {section === 'payment-methods' && <PaymentMethods />}
            {section === 'usage' && <Usage />}
            {section === 'license-keys' && <LicenseKeys />}
            {section === 'downloads' && <Downloads />}
            {section === 'benefits' && <Benefits linkError={arrival.linkError} />}
            {section === 'billing' && <BillingDetails />}
          </AfterAuthentication>
        </main>
      </div>
    </PortalContext.Provider>
  );
}
