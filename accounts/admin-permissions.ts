/**
 * The admin plugin's access control, as Better Auth 1.3.34 ships it by default: two roles,
 * `admin` (every admin statement) and `user` (none). A user's role may be comma-separated and
 * any one of its roles grants; ids in `adminUserIds` are granted everything whatever their role.
 * Pure: no I/O, shared by the admin routes and their tests.
 */
import {
  anyRoleGrants,
  type PermissionRequest,
  type RoleStatements,
} from '../domain/permissions.ts';

export type { PermissionRequest };

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

export const adminRoles: Record<string, RoleStatements> = {
  admin: adminStatements,
  user: { user: [], session: [] },
};

export const defaultRole = 'user';

export function isKnownRole(role: string): boolean {
  return Object.hasOwn(adminRoles, role);
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
  return anyRoleGrants(adminRoles, subject.role || defaultRole, request);
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
