import type { ReactNode } from 'react';

interface StatusBadgeProps {
  ok: boolean;
  children: ReactNode;
}

/** Green pill when `ok`, red otherwise. */
export function StatusBadge({ ok, children }: StatusBadgeProps) {
  return <span className={ok ? 'badge badge-ok' : 'badge badge-failed'}>{children}</span>;
}
