import {
  anyRoleGrants,
  type PermissionRequest,
  type RoleStatements,
  splitRoles,
} from './permissions.ts';

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

/**
 * Owners and admins write through /v1 and manage its access tokens; other members only read.
 * A member who stops being one of them loses the tokens they created.
 */
export function isCommerceWriter(role: string): boolean {
  return splitRoles(role).some((name) => name === creatorRole || name === 'admin');
}
