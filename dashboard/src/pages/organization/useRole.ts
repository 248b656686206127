import { useQuery } from '@tanstack/react-query';
import { isCommerceWriter, memberMayDo } from '../../../../domain/organization-permissions.ts';
import type { PermissionRequest } from '../../../../domain/permissions.ts';
import { membersApi, organizationKey } from './api';

/**
 * What the signed-in member may do in the active organization, asked of the same role matrix
 * the API enforces; while the role loads, nothing is allowed (buttons appear once it is known).
 */
export function usePermissions() {
  const role = useQuery({
    queryKey: [...organizationKey, 'role'],
    queryFn: ({ signal }) => membersApi.activeRole(signal),
  });
  const roles = role.data?.role.split(',') ?? [];
  return {
    /** The role is known (until then every check answers false). */
    known: role.isSuccess,
    isOwner: roles.includes('owner'),
    /** Owners and admins: who may change /v1 settings, tokens and webhooks (commerce/http/caller.ts). */
    isWriter: role.data ? isCommerceWriter(role.data.role) : false,
    may: (request: PermissionRequest) => (role.data ? memberMayDo(role.data.role, request) : false),
  };
}
