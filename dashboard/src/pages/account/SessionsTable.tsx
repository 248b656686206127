import { createColumnHelper } from '@tanstack/react-table';
import type { PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceTable } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { DeleteAction } from '../catalog/DeleteAction';
import { pageOf } from '../organization/api';
import type { UserSession } from './api';
import './account.css';

const browsers: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const systems: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** `Chrome on Linux`, from a browser's User-Agent; what it does not recognise, as it is. */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (!browser) return userAgent;
  return system ? `${browser} on ${system}` : browser;
}

const column = createColumnHelper<UserSession>();

interface SessionsTableProps {
  /** The table's caption. */
  label: string;
  queryKey: readonly unknown[];
  load: (signal: AbortSignal) => Promise<UserSession[]>;
  /** Ends a session (by the `token` its list answered); the table reloads after. */
  revoke: (session: UserSession) => Promise<unknown>;
  /** The session of this browser: marked, and not revoked from here (that is signing out). */
  currentSessionId?: string;
}

/** Sessions, the most recently active first, each revocable after confirming. */
export function SessionsTable({
  label,
  queryKey,
  load,
  revoke,
  currentSessionId,
}: SessionsTableProps) {
  const fetchPage = async (query: PageQuery, signal: AbortSignal) =>
    pageOf(await load(signal), query, {
      created_at: (session) => session.createdAt,
      updated_at: (session) => session.updatedAt,
    });
  const columns = [
    column.accessor((session) => deviceOf(session.userAgent), {
      id: 'device',
      header: 'Device',
      cell: (cell) => {
        const session = cell.row.original;
        return (
          <>
            <span className="session-device" title={session.userAgent ?? undefined}>
              {cell.getValue()}{' '}
              {session.id === currentSessionId && (
                <StatusBadge tone="info">this browser</StatusBadge>
              )}
              {session.impersonatedBy && <StatusBadge tone="warning">impersonation</StatusBadge>}
            </span>
            <span className="muted">{session.ipAddress ?? 'no address recorded'}</span>
          </>
        );
      },
    }),
    column.accessor('createdAt', {
      id: 'created_at',
      header: 'Signed in',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.accessor('updatedAt', {
      id: 'updated_at',
      header: 'Last active',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.accessor('expiresAt', {
      header: 'Expires',
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) => {
        const session = cell.row.original;
        if (session.id === currentSessionId) return null;
        return (
          <DeleteAction label="Revoke session" run={() => revoke(session)} queryKey={queryKey}>
            The {deviceOf(session.userAgent)} session
            {session.ipAddress ? ` from ${session.ipAddress}` : ''} is signed out at once.
          </DeleteAction>
        );
      },
    }),
  ];
  return (
    <ResourceTable
      label={label}
      source={{ queryKey, fetchPage }}
      columns={columns}
      defaultSorting="-updated_at"
      empty="No sessions."
    />
  );
}
