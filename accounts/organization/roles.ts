import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Member, OrganizationRole } from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import { placeholders } from '../../db/sql.ts';
import {
  isOrganizationRole,
  memberMayDo,
  memberScopes,
  permissionsBeyond,
  unknownPermissions,
} from '../../domain/organization-permissions.ts';
import type { PermissionRequest, RoleStatements } from '../../domain/permissions.ts';
import { splitRoles } from '../../domain/permissions.ts';
import { type OrganizationMessage, organizationError } from './errors.ts';
import { lockRow } from './limits.ts';

// Roles an organization defines for itself (Better Auth's dynamic access control), beside the
// predefined owner, admin and member, which no organization can create, change or delete. Every
// permission check of a member goes through `mayDo` (or `memberScopes` for /v1), so a custom
// role grants exactly its permission map, and a change to it holds from the next request.

/** How many roles an organization may define (Better Auth's maximumRolesPerOrganization). */
export const maximumRolesPerOrganization = 100;

/** A permission map as stored and answered: actions per resource. */
export type Permission = Record<string, string[]>;

/** Better Auth stores role names lower-cased. */
export const normalizeRoleName = (name: string) => name.toLowerCase();

/**
 * The roles of the organization that `role` (one or comma-separated) names and that are not
 * predefined, as statements; no query when every name is predefined.
 */
async function customRolesIn(
  em: EntityManager,
  organizationId: string,
  role: string,
): Promise<Record<string, RoleStatements>> {
  const names = splitRoles(role).filter((name) => !isOrganizationRole(name));
  if (names.length === 0 || !isUuid(organizationId)) return {};
  const rows = await em.find(
    OrganizationRole,
    { organization: organizationId, role: { $in: names } },
    { fields: ['role', 'permission'] },
  );
  return Object.fromEntries(rows.map((row) => [row.role, row.permission]));
}

/** True when `member`'s role, predefined or their organization's own, grants all of `request`. */
export async function mayDo(
  em: EntityManager,
  member: Member,
  request: PermissionRequest,
): Promise<boolean> {
  const custom = await customRolesIn(em, member.organization.id, member.role);
  return memberMayDo(member.role, request, custom);
}

/** The /v1 scopes a member of `organizationId` with `role` acts with. */
export async function scopesOfMember(
  em: EntityManager,
  organizationId: string,
  role: string,
): Promise<string[]> {
  return memberScopes(role, await customRolesIn(em, organizationId, role));
}

/**
 * A role or roles given to a member or invitee, stored comma-separated as Better Auth does: each
 * must be predefined or one of the organization's own, else 400 ROLE_NOT_FOUND. The custom ones
 * stay share-locked until the caller's transaction ends, so a deletion cannot slip between this
 * check and the write that assigns them.
 */
export async function assignableRole(
  em: EntityManager,
  organizationId: string,
  role: string | string[],
): Promise<string> {
  const roles = splitRoles(Array.isArray(role) ? role.join(',') : role);
  if (roles.length === 0) throw organizationError('invalid', 'ROLE_NOT_FOUND');
  const custom = [...new Set(roles.filter((name) => !isOrganizationRole(name)))];
  if (custom.length > 0) {
    const found = isUuid(organizationId)
      ? await em.execute<{ role: string }[]>(
          `select role from organization_roles where organization_id = ? and role in (${placeholders(custom.length)}) for share`,
          [organizationId, ...custom],
        )
      : [];
    if (found.length !== custom.length) throw organizationError('invalid', 'ROLE_NOT_FOUND');
  }
  return roles.join(',');
}

/** A custom role as Better Auth's dynamic access control answers it. */
export function roleJson(role: OrganizationRole) {
  return {
    id: role.id,
    organizationId: role.organization.id,
    role: role.role,
    permission: role.permission,
    createdAt: role.createdAt,
    updatedAt: role.updatedAt ?? null,
  };
}

/** A role named by its name or its id. */
export type RoleSelector = { roleName: string } | { roleId: string };

export function findRole(
  em: EntityManager,
  organizationId: string,
  selector: RoleSelector,
): Promise<OrganizationRole | null> {
  if ('roleId' in selector) {
    if (!isUuid(selector.roleId)) return Promise.resolve(null);
    return em.findOne(OrganizationRole, { organization: organizationId, id: selector.roleId });
  }
  return em.findOne(OrganizationRole, { organization: organizationId, role: selector.roleName });
}

export function listRoles(em: EntityManager, organizationId: string) {
  return em.find(
    OrganizationRole,
    { organization: organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/**
 * A permission map the caller may give a role: only resources and actions of the matrix (else
 * 400 INVALID_RESOURCE), and only what the caller holds themselves (else 403 `refusal`, with
 * what is missing), so no one makes a role mightier than they are.
 */
async function requireGrantable(
  em: EntityManager,
  caller: Member,
  permission: Permission,
  refusal: OrganizationMessage,
): Promise<void> {
  if (unknownPermissions(permission).length > 0) {
    throw organizationError('invalid', 'INVALID_RESOURCE');
  }
  const custom = await customRolesIn(em, caller.organization.id, caller.role);
  const missingPermissions = permissionsBeyond(caller.role, permission, custom);
  if (missingPermissions.length > 0) {
    throw organizationError('forbidden', refusal, { missingPermissions });
  }
}

/** 400 ROLE_NAME_IS_ALREADY_TAKEN for a predefined name. */
export function requireFreeOfPredefined(name: string): void {
  if (isOrganizationRole(name)) throw organizationError('invalid', 'ROLE_NAME_IS_ALREADY_TAKEN');
}

async function requireNameFree(em: EntityManager, organizationId: string, name: string) {
  if (await em.count(OrganizationRole, { organization: organizationId, role: name })) {
    throw organizationError('invalid', 'ROLE_NAME_IS_ALREADY_TAKEN');
  }
}

/** Two writes of one name at once: the unique index decides, and the loser hears why. */
async function nameTakenOnConflict<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw organizationError('invalid', 'ROLE_NAME_IS_ALREADY_TAKEN');
    }
    throw error;
  }
}

/**
 * create-role, once the caller is known to hold `ac: create`: within the organization's limit
 * (counted under its row's lock), with a grantable permission map and a free name.
 */
export function createRole(
  em: EntityManager,
  caller: Member,
  name: string,
  permission: Permission,
): Promise<OrganizationRole> {
  const organizationId = caller.organization.id;
  return nameTakenOnConflict(() =>
    em.transactional(async (tx) => {
      await lockRow(tx, 'organizations', organizationId);
      const count = await tx.count(OrganizationRole, { organization: organizationId });
      if (count >= maximumRolesPerOrganization) {
        throw organizationError('invalid', 'TOO_MANY_ROLES');
      }
      await requireGrantable(tx, caller, permission, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE');
      await requireNameFree(tx, organizationId, name);
      return tx.create(OrganizationRole, { organization: organizationId, role: name, permission });
    }),
  );
}

export interface RoleChange {
  permission?: Permission | undefined;
  roleName?: string | undefined;
}

/**
 * update-role, once the caller is known to hold `ac: update`: a new permission map (grantable)
 * and or a new name (free; the members and pending invitations holding the old one follow it).
 */
export function updateRole(
  em: EntityManager,
  caller: Member,
  selector: RoleSelector,
  change: RoleChange,
): Promise<OrganizationRole> {
  const organizationId = caller.organization.id;
  return nameTakenOnConflict(() =>
    em.transactional(async (tx) => {
      const role = await findRole(tx, organizationId, selector);
      if (!role) throw organizationError('invalid', 'ROLE_NOT_FOUND');
      // Locked, so assignments of the old name (which share-lock it) finish first or see the new.
      await tx.execute('select 1 from organization_roles where id = ? for update', [role.id]);
      if (change.permission) {
        await requireGrantable(
          tx,
          caller,
          change.permission,
          'YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE',
        );
        role.permission = change.permission;
      }
      if (change.roleName) {
        const name = normalizeRoleName(change.roleName);
        requireFreeOfPredefined(name);
        await requireNameFree(tx, organizationId, name);
        await renameHeldRole(tx, organizationId, role.role, name);
        role.role = name;
      }
      return role;
    }),
  );
}

/** Members' and pending invitations' role lists name `to` where they named `from`. */
async function renameHeldRole(em: EntityManager, organizationId: string, from: string, to: string) {
  for (const statement of [
    "update members set role = array_to_string(array_replace(string_to_array(role, ','), ?, ?), ',') where organization_id = ? and ? = any(string_to_array(role, ','))",
    "update invitations set role = array_to_string(array_replace(string_to_array(role, ','), ?, ?), ',') where organization_id = ? and status = 'pending' and ? = any(string_to_array(role, ','))",
  ]) {
    await em.execute(statement, [from, to, organizationId, from]);
  }
}

/**
 * delete-role, once the caller is known to hold `ac: delete`: a predefined name is refused, and
 * so is a role any member holds or any pending invitation offers (they would be left with a name
 * that grants nothing).
 */
export function deleteRole(
  em: EntityManager,
  organizationId: string,
  selector: RoleSelector,
): Promise<void> {
  if ('roleName' in selector && isOrganizationRole(selector.roleName)) {
    throw organizationError('invalid', 'CANNOT_DELETE_A_PRE_DEFINED_ROLE');
  }
  return em.transactional(async (tx) => {
    const role = await findRole(tx, organizationId, selector);
    if (!role) throw organizationError('invalid', 'ROLE_NOT_FOUND');
    // Waits for assignments that share-locked the role; later ones find it gone.
    await tx.execute('select 1 from organization_roles where id = ? for update', [role.id]);
    const [{ holders = 0 } = {}] = await tx.execute<{ holders: number }[]>(
      `select ((select count(*) from members where organization_id = ? and ? = any(string_to_array(role, ',')))
        + (select count(*) from invitations where organization_id = ? and status = 'pending' and expires_at > now() and ? = any(string_to_array(role, ','))))::int as holders`,
      [organizationId, role.role, organizationId, role.role],
    );
    if (holders > 0) throw organizationError('invalid', 'ROLE_IS_IN_USE');
    tx.remove(role);
  });
}
