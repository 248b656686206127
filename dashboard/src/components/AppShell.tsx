import type { ReactNode } from 'react';

interface AppShellProps {
  children: ReactNode;
}

export function AppShell({ children }: AppShellProps) {
  return (
    <div className="app-shell">
      <aside className="sidebar">
        <div className="brand">Tollgate</div>
        <nav aria-label="Main">
          <ul className="nav-list">
            <li>
              <a className="nav-link" href="/" aria-current="page">
                System status
              </a>
            </li>
          </ul>
        </nav>
      </aside>
      <main className="content">{children}</main>
    </div>
  );
}
