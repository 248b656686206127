import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { teamJson } from '../../../accounts/organization/context.ts';
import { organizationError } from '../../../accounts/organization/errors.ts';
import { mayDo } from '../../../accounts/organization/roles.ts';
import {
  addTeamMember,
  createTeam,
  findMembership,
  findOwnTeamMembership,
  findTeam,
  listTeamMembers,
  listTeams,
  listUserTeams,
  removeTeam,
  removeTeamMember,
  renameTeam,
  teamMemberJson,
} from '../../../accounts/organization/teams.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { Member } from '../../../db/entities/index.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { reissueSessionCookies, requireSignedIn } from '../session-context.ts';
import { answerNull } from './answers.ts';

const teamName = z.string().min(1).max(255);

export const createTeamBody = z.object({ name: teamName, organizationId: z.string().optional() });

export const updateTeamBody = z.object({
  teamId: z.string(),
  data: z.object({
    name: teamName.optional(),
    organizationId: z.string().optional(),
    // Better Auth accepts these and ignores them (a team keeps its id)...
    id: z.string().optional(),
    // ...and types these as dates, which JSON cannot carry: any value is refused.
    createdAt: z.undefined().optional(),
    updatedAt: z.undefined().optional(),
  }),
});

export const removeTeamBody = z.object({
  teamId: z.string(),
  organizationId: z.string().optional(),
});
export const listTeamsQuery = z.object({ organizationId: z.string().optional() });
export const setActiveTeamBody = z.object({ teamId: z.string().nullish() });
export const listTeamMembersQuery = z.object({ teamId: z.string().optional() });
export const teamMemberBody = z.object({ teamId: z.string(), userId: z.coerce.string() });

/**
 * Better Auth's organization plugin, teams enabled (1.3.34): teams inside an organization, their
 * members, and the session's active team. Every route checks the caller's membership of the
 * organization it touches; the refusals are Better Auth's, route by route.
 */
export function teamRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router();

  async function setActiveTeam(ctx: Context, signedIn: SignedIn, teamId: string | null) {
    signedIn.session.activeTeamId = teamId;
    await orm.em.flush();
    reissueSessionCookies(ctx, settings, signedIn);
  }

  /** The organization a call names, else the session's active one. */
  function organizationIdOf(signedIn: SignedIn, named: string | undefined): string {
    const organizationId = named || signedIn.session.activeOrganizationId;
    if (!organizationId) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
    return organizationId;
  }

  /** add- and remove-team-member work in the active organization only, as in Better Auth. */
  async function activeOrganizationMember(signedIn: SignedIn): Promise<Member> {
    const organizationId = organizationIdOf(signedIn, undefined);
    const member = await findMembership(orm.em, signedIn.user.id, organizationId);
    if (!member) throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    return member;
  }

  router.post('/organization/create-team', async (ctx) => {
    const body = parseBody(ctx, createTeamBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, body.organizationId);
    const member = await findMembership(orm.em, signedIn.user.id, organizationId);
    // Better Auth's refusal for a non-member here speaks of invitations; clients see that code.
    if (!member) {
      throw organizationError(
        'forbidden',
        'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
      );
    }
    if (!(await mayDo(orm.em, member, { team: ['create'] }))) {
      throw organizationError(
        'forbidden',
        'YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION',
      );
    }
    ctx.body = teamJson(await createTeam(orm.em, settings, organizationId, body.name));
  });

  router.post('/organization/update-team', async (ctx) => {
    const { teamId, data } = parseBody(ctx, updateTeamBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, data.organizationId);
    const member = await findMembership(orm.em, signedIn.user.id, organizationId);
    if (!member || !(await mayDo(orm.em, member, { team: ['update'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM');
    }
    const team = await findTeam(orm.em, teamId, organizationId);
    if (!team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
    await renameTeam(orm.em, team, data.name);
    ctx.body = teamJson(team);
  });

  router.post('/organization/remove-team', async (ctx) => {
    const body = parseBody(ctx, removeTeamBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, body.organizationId);
    const member = await findMembership(orm.em, signedIn.user.id, organizationId);
    // Better Auth refuses to remove the team the caller's session has active.
    if (!member || signedIn.session.activeTeamId === body.teamId) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM');
    }
    if (!(await mayDo(orm.em, member, { team: ['delete'] }))) {
      throw organizationError(
        'forbidden',
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION',
      );
    }
    const team = await findTeam(orm.em, body.teamId, organizationId);
    if (!team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
    await removeTeam(orm.em, settings, organizationId, team);
    ctx.body = { message: 'Team removed successfully.' };
  });

  router.get('/organization/list-teams', async (ctx) => {
    const query = parseQuery(ctx, listTeamsQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = organizationIdOf(signedIn, query.organizationId);
    if (!(await findMembership(orm.em, signedIn.user.id, organizationId))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION');
    }
    ctx.body = (await listTeams(orm.em, organizationId)).map(teamJson);
  });

  router.get('/organization/list-user-teams', async (ctx) => {
    const { user } = await requireSignedIn(ctx, orm, settings);
    ctx.body = (await listUserTeams(orm.em, user)).map(teamJson);
  });

  router.post('/organization/set-active-team', async (ctx) => {
    const body = parseBody(ctx, setActiveTeamBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const activeTeamId = signedIn.session.activeTeamId;
    // null clears the active team; no team at all re-checks the active one.
    if (body.teamId === null) {
      if (activeTeamId) await setActiveTeam(ctx, signedIn, null);
      return answerNull(ctx);
    }
    const teamId = body.teamId || activeTeamId;
    if (!teamId) return answerNull(ctx);
    const team = await findTeam(orm.em, teamId);
    if (!team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
    if (!(await findOwnTeamMembership(orm.em, signedIn.user, team))) {
      throw organizationError('forbidden', 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
    }
    await setActiveTeam(ctx, signedIn, team.id);
    ctx.body = teamJson(team);
  });

  router.get('/organization/list-team-members', async (ctx) => {
    const query = parseQuery(ctx, listTeamMembersQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const teamId = query.teamId || signedIn.session.activeTeamId;
    if (!teamId) throw organizationError('invalid', 'YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM');
    const team = await findTeam(orm.em, teamId);
    if (!team || !(await findOwnTeamMembership(orm.em, signedIn.user, team))) {
      throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
    }
    ctx.body = (await listTeamMembers(orm.em, team)).map(teamMemberJson);
  });

  router.post('/organization/add-team-member', async (ctx) => {
    const body = parseBody(ctx, teamMemberBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await activeOrganizationMember(signedIn);
    if (!(await mayDo(orm.em, caller, { member: ['update'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER');
    }
    const organizationId = caller.organization.id;
    if (!(await findMembership(orm.em, body.userId, organizationId))) {
      throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    }
    const team = await findTeam(orm.em, body.teamId, organizationId);
    if (!team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
    ctx.body = teamMemberJson(await addTeamMember(orm.em, settings, team, body.userId));
  });

  router.post('/organization/remove-team-member', async (ctx) => {
    const body = parseBody(ctx, teamMemberBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const caller = await activeOrganizationMember(signedIn);
    if (!(await mayDo(orm.em, caller, { member: ['delete'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER');
    }
    const organizationId = caller.organization.id;
    if (!(await findMembership(orm.em, body.userId, organizationId))) {
      throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
    }
    const team = await findTeam(orm.em, body.teamId, organizationId);
    if (!team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
    await removeTeamMember(orm.em, team, body.userId);
    ctx.body = { message: 'Team member removed successfully.' };
  });

  return router;
}
