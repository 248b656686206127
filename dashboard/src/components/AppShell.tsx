import { type ReactNode, useState } from 'react';
import { sendVerificationEmail } from '../api/auth';
import { ImpersonationBanner } from '../auth/ImpersonationBanner';
import { useSignedIn, useSignOut, useSwitchOrganization } from '../auth/session';
import { navSections, routes } from '../pages';
import { useIsAdmin } from '../pages/admin/useIsAdmin';
import { Link, navigate, usePathname } from '../router';

const newOrganization = 'new';

/** The signed-in frame: sidebar with the sections, organization switcher and account. */
export function AppShell({ children }: { children: ReactNode }) {
  // The Admin section is for those the server lets administer users.
  const isAdmin = useIsAdmin();
  const sections = navSections.filter((section) => section !== 'Admin' || isAdmin);
  // At phone width the sidebar hides behind a menu button. It is open on the page it was
  // opened on: going to another page closes it.
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === pathname;
  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="phone-bar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setOpenOn(menuOpen ? null : pathname)}
        >
          Menu
        </button>
        <span className="brand">Tollgate</span>
      </header>
      <aside className={menuOpen ? 'sidebar sidebar-open' : 'sidebar'} id="sidebar">
        <div className="brand">Tollgate</div>
        <OrganizationSwitcher />
        <nav aria-label="Main">
          {sections.map((section) => (
            <div key={section} className="nav-section">
              <h2 className="nav-heading">{section}</h2>
              <ul className="nav-list">
                {routes
                  .filter((route) => route.nav === section)
                  .map((route) => (
                    <li key={route.path}>
                      <Link className="nav-link" to={route.path} current="prefix">
                        {route.title}
                      </Link>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </nav>
        <Account />
      </aside>
      <main className="content" id="main" tabIndex={-1}>
        <ImpersonationBanner />
        <VerifyEmailBanner />
        {children}
      </main>
    </div>
  );
}

function OrganizationSwitcher() {
  const { organization, organizations } = useSignedIn();
  const switchOrganization = useSwitchOrganization();
  const [error, setError] = useState<Error | null>(null);
  const choose = async (value: string) => {
    if (value === newOrganization) return navigate('/organizations/new');
    setError(null);
    try {
      await switchOrganization(value);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <div className="org-switcher">
      <label htmlFor="organization-switcher">Organization</label>
      <select
        id="organization-switcher"
        value={organization.id}
        onChange={(event) => choose(event.target.value)}
      >
        {organizations.map((each) => (
          <option key={each.id} value={each.id}>
            {each.name}
          </option>
        ))}
        <option value={newOrganization}>+ New organization…</option>
      </select>
      {error && (
        <p className="sidebar-error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}

function Account() {
  const { session } = useSignedIn();
  const leave = useSignOut();
  return (
    <div className="account">
      <span className="account-email">{session.user.email}</span>
      <Link className="nav-link" to="/account" current="prefix">
        Account
      </Link>
      <button type="button" className="button button-quiet" onClick={leave}>
        Sign out
      </button>
    </div>
  );
}

/** Unverified users are reminded, with a way to get a fresh link. */
function VerifyEmailBanner() {
  const { session } = useSignedIn();
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | Error>('idle');
  if (session.user.emailVerified) return null;
  const resend = async () => {
    setState('sending');
    try {
      await sendVerificationEmail(session.user.email);
      setState('sent');
    } catch (failure) {
      setState(failure as Error);
    }
  };
  return (
    <div className="banner" role="status">
      <span>
        Your email address <strong>{session.user.email}</strong> is not verified yet.
      </span>
      {state === 'sent' ? (
        <span>A new link is on its way.</span>
      ) : (
        <button type="button" className="button" onClick={resend} disabled={state === 'sending'}>
          Resend the link
        </button>
      )}
      {state instanceof Error && <span role="alert">{state.message}</span>}
    </div>
  );
}
