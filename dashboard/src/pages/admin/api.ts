/**
 * Better Auth's admin plugin under /api/auth/admin, as the dashboard's Admin pages use it:
 * users (list, search, read, role), bans, impersonation and other users' sessions. The server
 * decides who is an admin (a role granting it, or TOLLGATE_ADMIN_USER_IDS): `has-permission`
 * answers for the signed-in user.
 */

import { auth, type User } from '../../api/auth';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';
import type { UserSession } from '../account/api';

export interface AdminUser extends User {
  role: string | null;
  banned: boolean;
  banReason: string | null;
  banExpires: string | null;
  createdAt: string;
}

/** The roles Better Auth's admin plugin ships: `admin` may do everything here, `user` nothing. */
export const adminRoles = ['user', 'admin'] as const;

export const adminKeys = {
  permission: ['auth', 'admin', 'permission'] as const,
  users: ['auth', 'admin', 'users'] as const,
  user: (id: string) => ['auth', 'admin', 'users', id] as const,
  sessions: (id: string) => ['auth', 'admin', 'users', id, 'sessions'] as const,
};

const admin = (path: string) => auth(`/admin${path}`);

/**
 * A page of users the way DataTable asks (`page`, `limit`, `sorting=-createdAt`, the `email`
 * search), turned into list-users' offset, sort and search.
 */
async function listUsers(query: PageQuery, signal: AbortSignal): Promise<ListResource<AdminUser>> {
  const [criterion = '-createdAt'] = query.sorting;
  const search = typeof query.email === 'string' ? query.email : '';
  const answer = await api.get<{ users: AdminUser[]; total: number }>(admin('/list-users'), {
    query: {
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
      sortBy: criterion.replace(/^-/, ''),
      sortDirection: criterion.startsWith('-') ? 'desc' : 'asc',
      ...(search && { searchValue: search, searchField: 'email', searchOperator: 'contains' }),
    },
    signal,
  });
  return {
    items: answer.users,
    pagination: { total_count: answer.total, max_page: Math.ceil(answer.total / query.limit) },
  };
}

export const adminApi = {
  /** Whether the signed-in user may manage users: what shows the Admin section. */
  mayManageUsers: async (signal?: AbortSignal) =>
    (
      await api.post<{ success: boolean }>(
        admin('/has-permission'),
        { permissions: { user: ['list'] } },
        { signal },
      )
    ).success,
  listUsers,
  getUser: (id: string, signal?: AbortSignal) =>
    api.get<AdminUser>(admin('/get-user'), { query: { id }, signal }),
  setRole: (userId: string, role: string) =>
    api.post<{ user: AdminUser }>(admin('/set-role'), { userId, role }),
  /** `expiresInSeconds` unset: banned until unbanned. */
  ban: (
    userId: string,
    { reason, expiresInSeconds }: { reason: string; expiresInSeconds?: number },
  ) =>
    api.post<{ user: AdminUser }>(admin('/ban-user'), {
      userId,
      banReason: reason || undefined,
      banExpiresIn: expiresInSeconds,
    }),
  unban: (userId: string) => api.post<{ user: AdminUser }>(admin('/unban-user'), { userId }),
  sessions: async (userId: string, signal?: AbortSignal) =>
    (
      await api.post<{ sessions: UserSession[] }>(
        admin('/list-user-sessions'),
        { userId },
        { signal },
      )
    ).sessions,
  revokeSession: (sessionToken: string) =>
    api.post<{ success: boolean }>(admin('/revoke-user-session'), { sessionToken }),
  revokeSessions: (userId: string) =>
    api.post<{ success: boolean }>(admin('/revoke-user-sessions'), { userId }),
  /** The browser's session becomes one of the user's until stopImpersonating. */
  impersonate: (userId: string) => api.post(admin('/impersonate-user'), { userId }),
  stopImpersonating: () => api.post(admin('/stop-impersonating')),
};
