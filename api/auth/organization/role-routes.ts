import Router from '@koa/router';
import { z } from 'zod';
import {
  type OrganizationMessage,
  organizationError,
} from '../../../accounts/organization/errors.ts';
import { findMember } from '../../../accounts/organization/members.ts';
import {
  createRole,
  deleteRole,
  findRole,
  listRoles,
  mayDo,
  normalizeRoleName,
  type RoleSelector,
  requireFreeOfPredefined,
  roleJson,
  updateRole,
} from '../../../accounts/organization/roles.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { requireSignedIn } from '../session-context.ts';

const permission = z.record(z.string(), z.array(z.string()));

// Role names are stored in members' comma-separated role lists: a comma would split one in two.
const roleName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !name.includes(','), { message: 'a role name has no commas' });

/** Better Auth's roleName-or-roleId choice, beside the organization (the active one if none). */
const selected = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.union([
    z.object({ ...shape, organizationId: z.string().optional(), roleName: z.string() }),
    z.object({ ...shape, organizationId: z.string().optional(), roleId: z.string() }),
  ]);

export const createRoleBody = z.object({
  organizationId: z.string().optional(),
  role: roleName,
  permission,
  // Better Auth's extra columns of a role; Tollgate's roles have none.
  additionalFields: z.object({}).optional(),
});

export const deleteRoleBody = selected({});
export const getRoleQuery = selected({});
export const listRolesQuery = z.object({ organizationId: z.string().optional() });
export const updateRoleBody = selected({
  data: z.object({ permission: permission.optional(), roleName: roleName.optional() }),
});

const selectorOf = (body: { roleName: string } | { roleId: string }): RoleSelector =>
  'roleName' in body ? { roleName: body.roleName } : { roleId: body.roleId };

/**
 * Better Auth's organization plugin (1.3.34), dynamic access control: roles an organization
 * defines for itself, managed by members whose role holds the `ac` resource's actions. The
 * refusals, statuses and their order are Better Auth's, route by route; on top, a role some
 * member holds or a pending invitation offers is not deleted.
 */
export function roleRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router();

  /**
   * The caller's membership of the organization named (else the session's active one), whose
   * role must hold `ac: action`, else 403 `refusal`.
   */
  async function roleManager(
    signedIn: SignedIn,
    named: string | undefined,
    action: 'create' | 'read' | 'update' | 'delete',
    refusal: OrganizationMessage,
  ) {
    const organizationId = named ?? signedIn.session.activeOrganizationId;
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    return requireAc(signedIn, organizationId, action, refusal);
  }

  async function requireAc(
    signedIn: SignedIn,
    organizationId: string,
    action: 'create' | 'read' | 'update' | 'delete',
    refusal: OrganizationMessage,
  ) {
    const member = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!member) throw organizationError('forbidden', 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
    if (!(await mayDo(orm.em, member, { ac: [action] }))) {
      throw organizationError('forbidden', refusal);
    }
    return member;
  }

  router.post('/organization/create-role', async (ctx) => {
    const body = parseBody(ctx, createRoleBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = body.organizationId ?? signedIn.session.activeOrganizationId;
    if (!organizationId) {
      throw organizationError('invalid', 'YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE');
    }
    const name = normalizeRoleName(body.role);
    requireFreeOfPredefined(name);
    const caller = await requireAc(
      signedIn,
      organizationId,
      'create',
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE',
    );
    const role = await createRole(orm.em, caller, name, body.permission);
    ctx.body = { success: true, roleData: roleJson(role), statements: role.permission };
  });

  router.post('/organization/delete-role', async (ctx) => {
    const body = parseBody(ctx, deleteRoleBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await roleManager(
      signedIn,
      body.organizationId,
      'delete',
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE',
    );
    await deleteRole(orm.em, caller.organization.id, selectorOf(body));
    ctx.body = { success: true };
  });

  router.get('/organization/list-roles', async (ctx) => {
    const query = parseQuery(ctx, listRolesQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await roleManager(
      signedIn,
      query.organizationId,
      'read',
      'YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE',
    );
    ctx.body = (await listRoles(orm.em, caller.organization.id)).map(roleJson);
  });

  router.get('/organization/get-role', async (ctx) => {
    const query = parseQuery(ctx, getRoleQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await roleManager(
      signedIn,
      query.organizationId,
      'read',
      'YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE',
    );
    const role = await findRole(orm.em, caller.organization.id, selectorOf(query));
    if (!role) throw organizationError('invalid', 'ROLE_NOT_FOUND');
    ctx.body = roleJson(role);
  });

  router.post('/organization/update-role', async (ctx) => {
    const body = parseBody(ctx, updateRoleBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await roleManager(
      signedIn,
      body.organizationId,
      'update',
      'YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE',
    );
    const role = await updateRole(orm.em, caller, selectorOf(body), body.data);
    ctx.body = { success: true, roleData: roleJson(role) };
  });

  return router;
}
