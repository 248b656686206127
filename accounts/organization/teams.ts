import type { EntityManager } from '@mikro-orm/postgresql';
import { type Organization, Team, TeamMember, type User } from '../../db/entities/index.ts';
import type { AuthSettings } from '../settings.ts';

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
