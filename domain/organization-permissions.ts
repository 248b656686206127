import { anyRoleGrants, type PermissionRequest, type RoleStatements } from './permissions.ts';

/**
 * The organization roles of spec section 6, as Better Auth's organization plugin defaults them.
 * Every organization route asks this one matrix. A member's role may be comma-separated; any
 * one of its roles grants.
 */
export const organizationStatements = {
  organization: ['update', 'delete'],
  member: ['create', 'update', 'delete'],
  invitation: ['create', 'cancel'],
  team: ['create', 'update', 'delete'],
  ac: ['create', 'read', 'update', 'delete'],
} as const;

export const organizationRoles: Record<string, RoleStatements> = {
  owner: organizationStatements,
  admin: { ...organizationStatements, organization: ['update'] },
  member: { organization: [], member: [], invitation: [], team: [], ac: ['read'] },
};

export const creatorRole = 'owner';
export const defaultMemberRole = 'member';

export function isOrganizationRole(role: string): boolean {
  return Object.hasOwn(organizationRoles, role);
}

/** True when a member with `role` may do everything in `request`. */
export function memberMayDo(role: string, request: PermissionRequest): boolean {
  return anyRoleGrants(organizationRoles, role, request);
}
