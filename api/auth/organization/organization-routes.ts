import Router from '@koa/router';
import { z } from 'zod';
import { authError } from '../../../accounts/errors.ts';
import {
  invitationJson,
  memberJson,
  memberWithUserJson,
  organizationJson,
  teamJson,
} from '../../../accounts/organization/context.ts';
import { organizationError } from '../../../accounts/organization/errors.ts';
import { findMember } from '../../../accounts/organization/members.ts';
import {
  createOrganization,
  deleteOrganization,
  findOrganization,
  isSlugTaken,
  listUserOrganizations,
  organizationContents,
  updateOrganization,
} from '../../../accounts/organization/organizations.ts';
import { mayDo } from '../../../accounts/organization/roles.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { reissueSessionCookies, requireSignedIn, signedInOrNull } from '../session-context.ts';
import { answerNull, dropCookieCache } from './answers.ts';
import { roleRoutes } from './role-routes.ts';

const metadata = z.record(z.string(), z.any());

export const createBody = z.object({
  name: z.string().min(1).max(255),
  slug: z.string().min(1).max(255),
  // Better Auth's server calls name the creator; over HTTP the session does, and this is ignored.
  userId: z.coerce.string().optional(),
  logo: z.string().optional(),
  metadata: metadata.optional(),
  keepCurrentActiveOrganization: z.boolean().optional(),
});

export const checkSlugBody = z.object({ slug: z.string() });

export const updateBody = z.object({
  data: z.object({
    name: z.string().min(1).max(255).optional(),
    slug: z.string().min(1).max(255).optional(),
    logo: z.string().optional(),
    metadata: metadata.optional(),
  }),
  organizationId: z.string().optional(),
});

export const deleteBody = z.object({ organizationId: z.string() });

export const fullOrganizationQuery = z.object({
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
  // Anything but a positive whole number leaves the membership limit in charge.
  membersLimit: z.coerce.number().catch(0).optional(),
});

export const setActiveBody = z.object({
  organizationId: z.string().nullish(),
  organizationSlug: z.string().optional(),
});

/**
 * Better Auth's organization plugin (1.3.34), organizations: create, check-slug, update, delete,
 * list, get-full-organization and set-active (the session's active organization), with the
 * organization's own roles (role-routes.ts) mounted beside them. Every route
 * that touches an organization checks the caller's membership and role in it; refusals,
 * statuses and their order are Better Auth's, route by route.
 */
export function organizationRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const { orm } = dependencies;
  const router = new Router();

  async function setActiveOrganization(signedIn: SignedIn, organizationId: string | null) {
    signedIn.session.activeOrganizationId = organizationId;
    await orm.em.flush();
  }

  router.post('/organization/create', async (ctx) => {
    const body = parseBody(ctx, createBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const activate = body.keepCurrentActiveOrganization ? undefined : signedIn.session;
    const { organization, member } = await createOrganization(
      orm.em,
      settings.organizations,
      signedIn.user,
      body,
      activate,
    );
    if (activate) dropCookieCache(ctx, settings);
    ctx.body = { ...organizationJson(organization), members: [memberJson(member)] };
  });

  router.post('/organization/check-slug', async (ctx) => {
    const { slug } = parseBody(ctx, checkSlugBody);
    await requireSignedIn(ctx, orm, settings);
    if (await isSlugTaken(orm.em, slug)) throw organizationError('invalid', 'SLUG_IS_TAKEN');
    ctx.body = { status: true };
  });

  router.post('/organization/update', async (ctx) => {
    const { data, organizationId: named } = parseBody(ctx, updateBody);
    // Better Auth's own answer here for a missing session: 401 "User not found".
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) throw authError('unauthenticated', 'USER_NOT_FOUND');
    const organizationId = named || signedIn.session.activeOrganizationId;
    if (!organizationId) throw organizationError('invalid', 'ORGANIZATION_NOT_FOUND');
    const member = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!member) throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    if (!(await mayDo(orm.em, member, { organization: ['update'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION');
    }
    await updateOrganization(orm.em, member.organization, data);
    ctx.body = organizationJson(member.organization);
  });

  router.post('/organization/delete', async (ctx) => {
    const { organizationId } = parseBody(ctx, deleteBody);
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) {
      // Better Auth's answer, verbatim: a bare status, no code.
      ctx.status = 401;
      ctx.body = { status: 401 };
      return;
    }
    if (!organizationId) return answerNull(ctx);
    const member = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!member) throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    if (!(await mayDo(orm.em, member, { organization: ['delete'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION');
    }
    const answer = organizationJson(member.organization);
    await deleteOrganization(orm.em, organizationId);
    if (signedIn.session.activeOrganizationId === organizationId) dropCookieCache(ctx, settings);
    ctx.body = answer;
  });

  router.get('/organization/list', async (ctx) => {
    const { user } = await requireSignedIn(ctx, orm, settings);
    ctx.body = (await listUserOrganizations(orm.em, user)).map(organizationJson);
  });

  router.get('/organization/get-full-organization', async (ctx) => {
    const query = parseQuery(ctx, fullOrganizationQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const { organizationSlug } = query;
    const organizationId = query.organizationId || signedIn.session.activeOrganizationId;
    if (!organizationSlug && !organizationId) return answerNull(ctx);
    const organization = await findOrganization(
      orm.em,
      organizationSlug ? { slug: organizationSlug } : { id: organizationId ?? '' },
    );
    if (!organization) throw organizationError('invalid', 'ORGANIZATION_NOT_FOUND');
    if (!(await findMember(orm.em, signedIn.user.id, organization.id))) {
      // The session's active organization is one the caller no longer belongs to: forget it.
      if (signedIn.session.activeOrganizationId === organization.id) {
        await setActiveOrganization(signedIn, null);
      }
      throw organizationError('forbidden', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    }
    const membersLimit =
      query.membersLimit && query.membersLimit > 0
        ? Math.floor(query.membersLimit)
        : settings.organizations.membershipLimit;
    const { members, invitations, teams } = await organizationContents(
      orm.em,
      organization,
      membersLimit,
    );
    ctx.body = {
      ...organizationJson(organization),
      invitations: invitations.map(invitationJson),
      members: members.map(memberWithUserJson),
      teams: teams.map(teamJson),
    };
  });

  router.post('/organization/set-active', async (ctx) => {
    const body = parseBody(ctx, setActiveBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const activeId = signedIn.session.activeOrganizationId;
    if (body.organizationId === null) {
      if (activeId) {
        await setActiveOrganization(signedIn, null);
        reissueSessionCookies(ctx, settings, signedIn);
      }
      return answerNull(ctx);
    }
    let organizationId = body.organizationId || null;
    if (!organizationId && body.organizationSlug) {
      const organization = await findOrganization(orm.em, { slug: body.organizationSlug });
      if (!organization) throw organizationError('invalid', 'ORGANIZATION_NOT_FOUND');
      organizationId = organization.id;
    }
    // Neither given: the active organization, again (or nothing when there is none).
    organizationId ||= activeId ?? null;
    if (!organizationId) return answerNull(ctx);
    const member = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!member) {
      // As Better Auth: a refused switch leaves the session without an active organization.
      if (activeId) await setActiveOrganization(signedIn, null);
      throw organizationError('forbidden', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    }
    await setActiveOrganization(signedIn, member.organization.id);
    reissueSessionCookies(ctx, settings, signedIn);
    ctx.body = organizationJson(member.organization);
  });

  // The organization's own roles (dynamic access control).
  router.use(roleRoutes(dependencies, settings).routes());
  return router;
}
