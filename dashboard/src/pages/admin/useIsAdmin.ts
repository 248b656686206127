import { useQuery } from '@tanstack/react-query';
import { adminApi, adminKeys } from './api';

/**
 * Whether the signed-in user administers the platform's users, as the server decides it (its
 * role, or TOLLGATE_ADMIN_USER_IDS); false until it answers. Only what is shown depends on it:
 * every admin call is checked by the server.
 */
export function useIsAdmin(): boolean {
  const permission = useQuery({
    queryKey: adminKeys.permission,
    queryFn: ({ signal }) => adminApi.mayManageUsers(signal),
    staleTime: 5 * 60_000,
  });
  return permission.data === true;
}
