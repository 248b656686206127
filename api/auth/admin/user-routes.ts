import type Router from '@koa/router';
import { z } from 'zod';
import {
  createUserWithPassword,
  filterValueOf,
  listUsers,
  removeUser,
  requireUser,
  setUserPassword,
  setUserRole,
  type UserField,
  updateUser,
  userFieldKinds,
} from '../../../accounts/admin-users.ts';
import { authError } from '../../../accounts/errors.ts';
import { userJson } from '../../../accounts/sessions.ts';
import { checkPasswordLength } from '../../../accounts/users.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { idQuery } from '../schemas.ts';
import { type AdminRouteContext, roleValue, setRoleBody, userId, userIdBody } from './context.ts';

const isEmail = (value: unknown): value is string => z.email().max(255).safeParse(value).success;

export const createUserBody = z.object({
  email: z.string(),
  password: z.string(),
  name: z.string().max(255),
  role: roleValue.optional(),
  // Better Auth spreads `data` into the new row; these are the columns a caller may set.
  data: z
    .object({ emailVerified: z.boolean().optional(), image: z.string().nullable().optional() })
    .strict()
    .optional(),
});

export const updateUserBody = z.object({ userId, data: z.record(z.string(), z.unknown()) });
const userUpdate = z.object({
  data: z
    .object({
      name: z.string().min(1).max(255).optional(),
      email: z.unknown().optional(),
      image: z.string().nullable().optional(),
      emailVerified: z.boolean().optional(),
      role: roleValue.optional(),
    })
    .strict(),
});

export const setUserPasswordBody = z.object({ newPassword: z.string(), userId });

const userField = z.enum(Object.keys(userFieldKinds) as [UserField, ...UserField[]]);

// Better Auth answers its Number(value) || undefined: "0" is as good as absent.
const pageNumber = z
  .string()
  .regex(/^\d+$/, 'a whole number')
  .transform((value) => Number(value) || undefined);

export const listUsersQuery = z
  .object({
    searchValue: z.string().optional(),
    searchField: z.enum(['email', 'name']).optional(),
    searchOperator: z.enum(['contains', 'starts_with', 'ends_with']).optional(),
    limit: pageNumber.optional(),
    offset: pageNumber.optional(),
    sortBy: userField.optional(),
    sortDirection: z.enum(['asc', 'desc']).optional(),
    filterField: userField.optional(),
    filterValue: z.string().optional(),
    filterOperator: z.enum(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains']).optional(),
  })
  .superRefine((query, issues) => {
    if (!query.filterValue) return;
    const field = query.filterField ?? 'email';
    if (filterValueOf(field, query.filterValue) === undefined) {
      issues.addIssue({
        code: 'custom',
        path: ['filterValue'],
        message: `not a valid ${userFieldKinds[field]} for ${field}`,
      });
    }
    if (query.filterOperator === 'contains' && userFieldKinds[field] !== 'text') {
      issues.addIssue({
        code: 'custom',
        path: ['filterOperator'],
        message: `contains applies to text fields, not ${field}`,
      });
    }
  });

/** The admin plugin's user management: create, get, update, set-role, list, remove, password. */
export function userRoutes(router: Router, admin: AdminRouteContext): void {
  const { orm, settings, requireAdmin, checkRoles } = admin;

  router.post('/create-user', async (ctx) => {
    const body = parseBody(ctx, createUserBody);
    await requireAdmin(ctx, { user: ['create'] }, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS');
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    checkPasswordLength(body.password, settings.password);
    if (body.role !== undefined) checkRoles(body.role);
    const user = await createUserWithPassword(orm.em, {
      email: body.email,
      password: body.password,
      name: body.name,
      role: body.role,
      emailVerified: body.data?.emailVerified,
      image: body.data?.image,
    });
    ctx.body = { user: userJson(user) };
  });

  router.get('/get-user', async (ctx) => {
    const { id } = parseQuery(ctx, idQuery);
    await requireAdmin(ctx, { user: ['get'] }, 'YOU_ARE_NOT_ALLOWED_TO_GET_USER');
    ctx.body = userJson(await requireUser(orm.em, id));
  });

  router.post('/update-user', async (ctx) => {
    const body = parseBody(ctx, updateUserBody);
    await requireAdmin(ctx, { user: ['update'] }, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS');
    if (Object.keys(body.data).length === 0) throw authError('invalid', 'NO_DATA_TO_UPDATE');
    const { data } = parseBody(ctx, userUpdate);
    if (data.email !== undefined && !isEmail(data.email))
      throw authError('invalid', 'INVALID_EMAIL');
    if (data.role !== undefined) checkRoles(data.role);
    const user = await updateUser(orm.em, body.userId, { ...data, email: data.email });
    ctx.body = userJson(user);
  });

  router.post('/set-role', async (ctx) => {
    const body = parseBody(ctx, setRoleBody);
    await requireAdmin(ctx, { user: ['set-role'] }, 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE');
    checkRoles(body.role);
    ctx.body = { user: userJson(await setUserRole(orm.em, body.userId, body.role)) };
  });

  router.get('/list-users', async (ctx) => {
    const query = parseQuery(ctx, listUsersQuery);
    await requireAdmin(ctx, { user: ['list'] }, 'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS');
    const [users, total] = await listUsers(orm.em, query);
    ctx.body = { users: users.map(userJson), total, limit: query.limit, offset: query.offset };
  });

  router.post('/remove-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const { user } = await requireAdmin(
      ctx,
      { user: ['delete'] },
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS',
    );
    await removeUser(orm.em, user.id, body.userId);
    ctx.body = { success: true };
  });

  router.post('/set-user-password', async (ctx) => {
    const body = parseBody(ctx, setUserPasswordBody);
    await requireAdmin(
      ctx,
      { user: ['set-password'] },
      'YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD',
    );
    await setUserPassword(orm.em, settings.password, body.userId, body.newPassword);
    ctx.body = { status: true };
  });
}
