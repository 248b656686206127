/**
 * The admin plugin's access control, as Better Auth 1.3.34 ships it by default: two roles,
 * `admin` (every admin statement) and `user` (none). A user's role may be comma-separated and
 * any one of its roles grants; ids in `adminUserIds` are granted everything whatever their role.
 * Pure: no I/O, shared by the admin routes and their tests.
 */

// The spec's admin resources (section 6), plus `get` and `update`, which Better Auth 1.3.34 adds
// for its get-user and update-user routes.
export const adminStatements = {
  user: [
    'create',
    'list',
    'set-role',
    'ban',
    'impersonate',
    'delete',
    'set-password',
    'get',
    'update',
  ],
  session: ['list', 'revoke', 'delete'],
} as const;

/** What a caller asks to be allowed: actions per resource, any resource name (unknown ones fail). */
export type PermissionRequest = Record<string, readonly string[]>;

type RoleStatements = Record<string, readonly string[]>;

export const adminRoles: Record<string, RoleStatements> = {
  admin: adminStatements,
  user: { user: [], session: [] },
};

export const defaultRole = 'user';

export function isKnownRole(role: string): boolean {
  return Object.hasOwn(adminRoles, role);
}

/**
 * Better Auth's `role.authorize` with its default AND connector: every requested resource must be
 * in the role and every action listed under it. An empty request grants nothing, but a resource
 * asked with no actions passes (as Better Auth's `every` over an empty list does).
 */
export function roleGrants(statements: RoleStatements, request: PermissionRequest): boolean {
  const resources = Object.entries(request);
  if (resources.length === 0) return false;
  return resources.every(([resource, actions]) => {
    const allowed = Object.hasOwn(statements, resource) ? statements[resource] : undefined;
    return allowed !== undefined && actions.every((action) => allowed.includes(action));
  });
}

export interface PermissionSubject {
  userId: string;
  /** The stored role column: one role or several separated by commas; empty means the default. */
  role: string | null;
}

/** True when `subject` may do everything in `request`. */
export function hasAdminPermission(
  subject: PermissionSubject,
  request: PermissionRequest,
  adminUserIds: readonly string[],
): boolean {
  if (adminUserIds.includes(subject.userId)) return true;
  const roles = (subject.role || defaultRole).split(',');
  return roles.some((role) => isKnownRole(role) && roleGrants(adminRoles[role] ?? {}, request));
}

/** A role value as Better Auth stores it: an array of roles is kept comma-separated. */
export function joinRoles(role: string | readonly string[]): string {
  return typeof role === 'string' ? role : role.join(',');
}

/** Every role named exists: a string is one role (as Better Auth checks it), a list several. */
export function rolesExist(role: string | readonly string[]): boolean {
  const roles = typeof role === 'string' ? [role] : role;
  return roles.length > 0 && roles.every(isKnownRole);
}
