/**
 * Role-based access control as Better Auth's access module does it, shared by the admin and
 * organization roles. Pure: no I/O.
 */

/** What a caller asks to be allowed: actions per resource. */
export type PermissionRequest = Record<string, readonly string[]>;

/** What one role may do: actions per resource. */
export type RoleStatements = Record<string, readonly string[]>;

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

/** A stored role value: one role, or several separated by commas (untrimmed, as Better Auth). */
export function splitRoles(role: string): string[] {
  return role.split(',').filter(Boolean);
}

/** True when any one of the roles in `role` grants the whole request. */
export function anyRoleGrants(
  roles: Record<string, RoleStatements>,
  role: string,
  request: PermissionRequest,
): boolean {
  return splitRoles(role).some(
    (name) => Object.hasOwn(roles, name) && roleGrants(roles[name] ?? {}, request),
  );
}
