import type { ReactNode } from 'react';
import { EntityPage } from '../../components/EntityPage';
import { Link } from '../../router';
import './account.css';

/** The account's pages, each a tab above the page's sections. */
const tabs = [
  { to: '/account', label: 'Profile' },
  { to: '/account/password', label: 'Password' },
  { to: '/account/sessions', label: 'Sessions' },
  { to: '/account/linked-accounts', label: 'Linked accounts' },
  { to: '/account/delete', label: 'Delete account' },
] as const;

/** One page of the signed-in user's account: its title, the account's tabs, its sections. */
export function AccountPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <EntityPage title={title}>
      <nav aria-label="Account">
        <ul className="account-tabs">
          {tabs.map((tab) => (
            <li key={tab.to}>
              <Link to={tab.to}>{tab.label}</Link>
            </li>
          ))}
        </ul>
      </nav>
      {children}
    </EntityPage>
  );
}
