import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Member,
  Organization,
  Session,
  Team,
  TeamMember,
  type User,
} from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import type { AuthSettings } from '../settings.ts';
import { organizationError } from './errors.ts';

export function teamMemberJson(teamMember: TeamMember) {
  return {
    id: teamMember.id,
    teamId: teamMember.team.id,
    userId: teamMember.user.id,
    createdAt: teamMember.createdAt,
  };
}

/**
 * The team Better Auth makes with every organization when teams are enabled: named after the
 * organization, with its creator as the only member. Organization create calls this in its own
 * unit of work (the caller flushes) and makes the team the creator's active team, as it makes
 * the organization active.
 */
export function createDefaultTeam(
  em: EntityManager,
  organization: Organization,
  creator: User,
): Team {
  const team = em.create(Team, { organization, name: organization.name });
  em.create(TeamMember, { team, user: creator });
  return team;
}

/**
 * For removing a member from an organization (remove-member, leave): their places in its teams
 * go with it, or they would keep a team membership the team routes no longer honour.
 */
export async function removeFromOrganizationTeams(
  em: EntityManager,
  organizationId: string,
  userId: string,
): Promise<void> {
  const teams = await em.find(Team, { organization: organizationId }, { fields: ['id'] });
  await em.nativeDelete(TeamMember, { user: userId, team: { $in: teams.map(({ id }) => id) } });
}

/**
 * True when the team already has the configured maximum of members (Better Auth's
 * maximumMembersPerTeam; unset, no limit). Call it with the team row locked.
 */
export async function teamIsFull(
  em: EntityManager,
  settings: AuthSettings,
  teamId: string,
): Promise<boolean> {
  const { maximumMembersPerTeam } = settings.teams;
  if (maximumMembersPerTeam === undefined) return false;
  return (await em.count(TeamMember, { team: teamId })) >= maximumMembersPerTeam;
}

// Ids are UUIDs here; anything else names nothing (and must not reach PostgreSQL's uuid columns).

/** `userId`'s membership of `organizationId`, nothing loaded with it; or null. */
export function findMembership(em: EntityManager, userId: string, organizationId: string) {
  return isUuid(userId) && isUuid(organizationId)
    ? em.findOne(Member, { user: userId, organization: organizationId })
    : Promise.resolve(null);
}

export function findTeam(em: EntityManager, teamId: string, organizationId?: string) {
  if (!isUuid(teamId)) return Promise.resolve(null);
  return em.findOne(Team, organizationId ? { id: teamId, organization: organizationId } : teamId);
}

/**
 * The caller's place in a team. It counts only while they still belong to the team's
 * organization, so someone who left an organization reads nothing of its teams.
 */
export async function findOwnTeamMembership(em: EntityManager, user: User, team: Team) {
  const teamMember = await em.findOne(TeamMember, { team, user });
  if (!teamMember) return null;
  return (await findMembership(em, user.id, team.organization.id)) ? teamMember : null;
}

/** A new team, unless the organization has Better Auth's maximumTeams already. */
export function createTeam(
  em: EntityManager,
  settings: AuthSettings,
  organizationId: string,
  name: string,
): Promise<Team> {
  return em.transactional(async (tx) => {
    // One creation at a time per organization, so two cannot both pass the limit.
    await tx.findOneOrFail(Organization, organizationId, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    const { maximumTeams } = settings.teams;
    if (
      maximumTeams !== undefined &&
      (await tx.count(Team, { organization: organizationId })) >= maximumTeams
    ) {
      throw organizationError('invalid', 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS');
    }
    const now = new Date();
    return tx.create(Team, { organization: organizationId, name, createdAt: now, updatedAt: now });
  });
}

export async function renameTeam(em: EntityManager, team: Team, name: string | undefined) {
  if (name !== undefined) team.name = name;
  // An update without changes still counts as one, as in Better Auth.
  team.updatedAt = new Date();
  await em.flush();
}

/** The team and its members go; the organization's last team stays unless allowed to go. */
export async function removeTeam(
  em: EntityManager,
  settings: AuthSettings,
  organizationId: string,
  team: Team,
): Promise<void> {
  await em.transactional(async (tx) => {
    // Two removals at once could otherwise each see the other team and leave none.
    await tx.findOneOrFail(Organization, organizationId, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    if (
      !settings.teams.allowRemovingAllTeams &&
      (await tx.count(Team, { organization: organizationId })) <= 1
    ) {
      throw organizationError('invalid', 'UNABLE_TO_REMOVE_LAST_TEAM');
    }
    // Its members go with it (cascade); invitations into it stay, without a team.
    await tx.nativeDelete(Team, { id: team.id });
    // Sessions no longer point at a team that is gone.
    await tx.nativeUpdate(Session, { activeTeamId: team.id }, { activeTeamId: null });
  });
}

export function listTeams(em: EntityManager, organizationId: string): Promise<Team[]> {
  return em.find(
    Team,
    { organization: organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/** The user's teams in organizations they still belong to (see findOwnTeamMembership). */
export async function listUserTeams(em: EntityManager, user: User): Promise<Team[]> {
  const memberships = await em.find(Member, { user });
  const teamMembers = await em.find(
    TeamMember,
    {
      user,
      team: { organization: { $in: memberships.map(({ organization }) => organization.id) } },
    },
    { populate: ['team'], orderBy: { team: { createdAt: 'asc', id: 'asc' } } },
  );
  return teamMembers.map(({ team }) => team);
}

export function listTeamMembers(em: EntityManager, team: Team): Promise<TeamMember[]> {
  return em.find(TeamMember, { team }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * Puts `userId` in the team; someone already in it gets their membership back, as in Better
 * Auth. Better Auth checks maximumMembersPerTeam on invitations only; here it holds for every
 * way in.
 */
export function addTeamMember(
  em: EntityManager,
  settings: AuthSettings,
  team: Team,
  userId: string,
): Promise<TeamMember> {
  return em.transactional(async (tx) => {
    // One addition at a time per team, so two cannot both pass the member limit.
    await tx.findOneOrFail(Team, team.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const existing = await tx.findOne(TeamMember, { team: team.id, user: userId });
    if (existing) return existing;
    if (await teamIsFull(tx, settings, team.id)) {
      throw organizationError('forbidden', 'TEAM_MEMBER_LIMIT_REACHED');
    }
    return tx.create(TeamMember, { team: team.id, user: userId });
  });
}

/** The place goes, and the removed user's sessions no longer have this team active. */
export async function removeTeamMember(
  em: EntityManager,
  team: Team,
  userId: string,
): Promise<void> {
  const teamMember = await em.findOne(TeamMember, { team, user: userId });
  if (!teamMember) throw organizationError('invalid', 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
  await em.transactional(async (tx) => {
    await tx.nativeDelete(TeamMember, { id: teamMember.id });
    await tx.nativeUpdate(Session, { user: userId, activeTeamId: team.id }, { activeTeamId: null });
  });
}
