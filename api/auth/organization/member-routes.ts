import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { EmptyAnswer } from '../../../accounts/errors.ts';
import { memberJson, memberWithUserJson } from '../../../accounts/organization/context.ts';
import { organizationError } from '../../../accounts/organization/errors.ts';
import {
  filterOperators,
  filterRules,
  listMembers,
  memberFieldNames,
  memberRowJson,
} from '../../../accounts/organization/member-list.ts';
import {
  findMember,
  leaveOrganization,
  removeMember,
  updateMemberRole,
} from '../../../accounts/organization/members.ts';
import { mayDo } from '../../../accounts/organization/roles.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { Member } from '../../../db/entities/index.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { requireSignedIn } from '../session-context.ts';
import { answerNull, dropCookieCache } from './answers.ts';

const count = z.coerce.number().int().min(0);

// Better Auth 1.3.34's list-members query; filterValue arrives as text, whatever its type.
export const listMembersQuery = z
  .object({
    limit: count.optional(),
    offset: count.optional(),
    sortBy: z.enum(memberFieldNames).optional(),
    sortDirection: z.enum(['asc', 'desc']).optional(),
    filterField: z.enum(memberFieldNames).optional(),
    filterValue: z.string().optional(),
    filterOperator: z.enum(filterOperators).optional(),
    organizationId: z.string().optional(),
  })
  .superRefine((query, issues) => {
    if (!query.filterField) return;
    const rule = filterRules[query.filterField];
    if (!rule.operators.includes(query.filterOperator ?? 'eq')) {
      issues.addIssue({
        code: 'custom',
        path: ['filterOperator'],
        message: `${query.filterField} can be filtered with ${rule.operators.join(', ')}`,
      });
    }
    if (!rule.valid(query.filterValue ?? '')) {
      issues.addIssue({
        code: 'custom',
        path: ['filterValue'],
        message: `not a valid ${query.filterField}`,
      });
    }
  });

export const getActiveMemberRoleQuery = z.object({
  userId: z.string().optional(),
  organizationId: z.string().optional(),
});

export const removeMemberBody = z.object({
  memberIdOrEmail: z.string(),
  organizationId: z.string().optional(),
});

export const updateMemberRoleBody = z.object({
  role: z.union([z.string(), z.array(z.string())]),
  memberId: z.string(),
  organizationId: z.string().optional(),
});

export const leaveBody = z.object({ organizationId: z.string() });

const permissionRequest = z.record(z.string(), z.array(z.string()));
export const hasPermissionBody = z
  .object({
    organizationId: z.string().optional(),
    permission: permissionRequest.optional(),
    permissions: permissionRequest.optional(),
  })
  // One of the two, as Better Auth's schema means it (`permission` is the deprecated name).
  .refine((body) => (body.permission === undefined) !== (body.permissions === undefined), {
    message: 'give permissions (or the deprecated permission), not both',
  });

/**
 * Better Auth's organization plugin (1.3.34), members: listing, roles, removal, leaving, and
 * has-permission. Every route reads the caller's membership of the organization it touches
 * first; the refusals, statuses and their order are Better Auth's, route by route.
 */
export function memberRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router();

  /** The organization a call names, else the session's active one (null: neither). */
  const organizationIdOf = (signedIn: SignedIn, named: string | undefined) =>
    named || signedIn.session.activeOrganizationId || null;

  /** Removing oneself changed one's own sessions (removeMembership): the cached copy goes. */
  function afterRemoval(ctx: Context, signedIn: SignedIn, removed: Member) {
    if (removed.user.id === signedIn.user.id) dropCookieCache(ctx, settings);
  }

  router.get('/organization/list-members', async (ctx) => {
    const query = parseQuery(ctx, listMembersQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, query.organizationId);
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    if (!(await findMember(orm.em, signedIn.user.id, organizationId))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
    }
    const { rows, total } = await listMembers(
      orm.em,
      organizationId,
      query,
      settings.organizations.membershipLimit,
    );
    ctx.body = { members: rows.map(memberRowJson), total };
  });

  router.get('/organization/get-active-member', async (ctx) => {
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = signedIn.session.activeOrganizationId;
    const member = organizationId && (await findMember(orm.em, signedIn.user.id, organizationId));
    if (!member) return answerNull(ctx);
    ctx.body = memberWithUserJson(member);
  });

  router.get('/organization/get-active-member-role', async (ctx) => {
    const query = parseQuery(ctx, getActiveMemberRoleQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, query.organizationId);
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    // Only a member reads roles in an organization (Better Auth answers anyone who asks).
    const own = await findMember(orm.em, signedIn.user.id, organizationId);
    const member =
      own && query.userId ? await findMember(orm.em, query.userId, organizationId) : own;
    if (!member) throw organizationError('forbidden', 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
    ctx.body = { role: member.role };
  });

  router.post('/organization/remove-member', async (ctx) => {
    const body = parseBody(ctx, removeMemberBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, body.organizationId);
    if (!organizationId) return answerNull(ctx);
    const removed = await removeMember(
      orm.em,
      signedIn.user.id,
      organizationId,
      body.memberIdOrEmail,
    );
    afterRemoval(ctx, signedIn, removed);
    ctx.body = { member: memberWithUserJson(removed) };
  });

  router.post('/organization/update-member-role', async (ctx) => {
    const body = parseBody(ctx, updateMemberRoleBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    if (body.role.length === 0) throw new EmptyAnswer('invalid');
    const organizationId = organizationIdOf(signedIn, body.organizationId);
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    const updated = await updateMemberRole(
      orm.em,
      signedIn.user.id,
      organizationId,
      body.memberId,
      body.role,
    );
    ctx.body = memberJson(updated);
  });

  router.post('/organization/leave', async (ctx) => {
    const body = parseBody(ctx, leaveBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const left = await leaveOrganization(orm.em, signedIn.user.id, body.organizationId);
    afterRemoval(ctx, signedIn, left);
    ctx.body = memberWithUserJson(left);
  });

  router.post('/organization/has-permission', async (ctx) => {
    const body = parseBody(ctx, hasPermissionBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, body.organizationId);
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    const member = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!member)
      throw organizationError('unauthenticated', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    const request = body.permissions ?? body.permission ?? {};
    ctx.body = { error: null, success: await mayDo(orm.em, member, request) };
  });

  return router;
}
