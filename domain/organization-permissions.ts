import {
  anyRoleGrants,
  type PermissionRequest,
  type RoleStatements,
  splitRoles,
} from './permissions.ts';
import { allScopes, type Scope, scopeResources } from './scopes.ts';

/**
 * The organization roles of spec section 6, as Better Auth's organization plugin defaults them,
 * plus the commerce side: each /v1 scope resource with `read` and `write` (Polar's scopes).
 * Every organization route and every /v1 session caller asks this one matrix. A member's role
 * may be comma-separated; any one of its roles grants.
 */
export const organizationStatements: RoleStatements = {
  organization: ['update', 'delete'],
  member: ['create', 'update', 'delete'],
  invitation: ['create', 'cancel'],
  team: ['create', 'update', 'delete'],
  ac: ['create', 'read', 'update', 'delete'],
  ...Object.fromEntries(scopeResources.map((resource) => [resource, ['read', 'write']])),
};

const commerceReads = Object.fromEntries(scopeResources.map((resource) => [resource, ['read']]));

export const organizationRoles: Record<string, RoleStatements> = {
  owner: organizationStatements,
  admin: { ...organizationStatements, organization: ['update'] },
  member: {
    organization: [],
    member: [],
    invitation: [],
    team: [],
    ac: ['read'],
    ...commerceReads,
  },
};

export const creatorRole = 'owner';
export const defaultMemberRole = 'member';

/** One of the predefined roles (owner, admin, member), which no organization can redefine. */
export function isOrganizationRole(role: string): boolean {
  return Object.hasOwn(organizationRoles, role);
}

/**
 * True when a member with `role` may do everything in `request`; `customRoles` are the roles
 * the member's organization defined (dynamic access control), beside the predefined ones.
 */
export function memberMayDo(
  role: string,
  request: PermissionRequest,
  customRoles: Record<string, RoleStatements> = {},
): boolean {
  return anyRoleGrants({ ...customRoles, ...organizationRoles }, role, request);
}

/**
 * The resources and actions of `permission` that are not in the matrix, as `resource:action`
 * (a resource unknown as a whole: `resource`); empty when every one is known.
 */
export function unknownPermissions(permission: PermissionRequest): string[] {
  return Object.entries(permission).flatMap(([resource, actions]) => {
    if (!Object.hasOwn(organizationStatements, resource)) return [resource];
    const known = organizationStatements[resource] ?? [];
    return actions.filter((action) => !known.includes(action)).map((a) => `${resource}:${a}`);
  });
}

/** What of `permission` a member with `role` does not hold themselves, as `resource:action`. */
export function permissionsBeyond(
  role: string,
  permission: PermissionRequest,
  customRoles: Record<string, RoleStatements> = {},
): string[] {
  return Object.entries(permission).flatMap(([resource, actions]) =>
    actions
      .filter((action) => !memberMayDo(role, { [resource]: [action] }, customRoles))
      .map((action) => `${resource}:${action}`),
  );
}

/**
 * The /v1 scopes of a member with `role`: each scope its roles grant, so owners and admins get
 * every scope, members the read ones, and a custom role what it names.
 */
export function memberScopes(
  role: string,
  customRoles: Record<string, RoleStatements> = {},
): Scope[] {
  return allScopes.filter((scope) => {
    const [resource = '', action = ''] = scope.split(':');
    return memberMayDo(role, { [resource]: [action] }, customRoles);
  });
}

/**
 * Owners and admins create /v1 access tokens (a token may carry any scope), whatever a custom
 * role grants. A member who stops being one of them loses the tokens they created.
 */
export function isCommerceWriter(role: string): boolean {
  return splitRoles(role).some((name) => name === creatorRole || name === 'admin');
}
