import { DateTime } from '../../components/DateTime';
import { StatusBadge } from '../../components/StatusBadge';
import type { AdminUser } from './api';

/** Banned now: banned, and either for good or until a time still ahead (as the server reads it). */
export const isBanned = (user: AdminUser) =>
  user.banned && (!user.banExpires || new Date(user.banExpires) > new Date());

/** `banned until …`, or `active`. */
export function UserStatus({ user }: { user: AdminUser }) {
  if (!isBanned(user)) return <StatusBadge tone="ok">active</StatusBadge>;
  return (
    <>
      <StatusBadge tone="failed">banned</StatusBadge>
      {user.banExpires && (
        <span className="muted">
          {' '}
          until <DateTime value={user.banExpires} />
        </span>
      )}
    </>
  );
}
