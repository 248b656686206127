import type { OrganizationMessage } from '../../../accounts/organization/errors.ts';

/**
 * The organization adversarial suite's table (api/auth/organization/adversarial.test.ts): every
 * `/api/auth/organization/*` route of the route table, keyed `METHOD /path` as @koa/router holds
 * it, with the requests an attacker would make against the victim organization's objects and
 * the answer each attacker gets. A route missing here, or an entry naming no route, fails the
 * suite: a new organization route gets its attacks by adding its line.
 */

export interface Someone {
  userId: string;
  email: string;
  memberId: string;
}

/** Organization A and its objects, made through the API by the suite. */
export interface VictimObjects {
  organizationId: string;
  slug: string;
  name: string;
  owner: Someone;
  /** An admin of A, in its Support team. */
  admin: Someone;
  /** The team A was created with (its owner in it). */
  defaultTeamId: string;
  /** A second team, so "the last team" is never why a removal is refused. */
  supportTeamId: string;
  /** A pending invitation of A into its Support team, to an address neither attacker has. */
  invitation: { id: string; email: string };
}

/** Organization B, whose owner is the stranger to A, and the plain member of A. */
export interface AttackerObjects {
  organizationId: string;
  owner: Someone;
  defaultTeamId: string;
  /** The attacker that is a plain `member` of A. */
  memberOfVictim: Someone;
}

export interface Fixtures {
  victim: VictimObjects;
  attacker: AttackerObjects;
}

/** Better Auth's refusal: this status, `{code, message}` with the catalogue's message. */
export interface Refusal {
  status: number;
  message: OrganizationMessage;
}

/**
 * The route answers the caller's own data (why): 200, holding none of the victim's objects,
 * and `shows` of the caller's own when given (so the request is known to have worked).
 */
export interface OwnData {
  own: string;
  shows?: (fixtures: Fixtures) => string;
}

export interface AttackRequest {
  /** What the attacker tries, for failure messages. */
  attempt: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /**
   * The attacker's session names A as its active organization, as a stale pointer would (the
   * routes that work in the active organization only are attacked so).
   */
  activeVictim?: true;
  /** The answer to B's owner, a stranger to A. */
  stranger: Refusal | OwnData;
  /**
   * The answer to a plain member of A, for what only owners and admins may do; absent where a
   * member may (reads of their own organization, leaving it, their own permissions).
   */
  member?: Refusal;
}

const refused = (status: number, message: OrganizationMessage): Refusal => ({ status, message });

export const organizationRouteCases: Record<string, (fixtures: Fixtures) => AttackRequest[]> = {
  'POST /api/auth/organization/create': ({ victim }) => [
    {
      attempt: "create an organization with A's slug, naming A's owner as its creator",
      body: { name: 'Lookalike', slug: victim.slug, userId: victim.owner.userId },
      stranger: refused(400, 'ORGANIZATION_ALREADY_EXISTS'),
      member: refused(400, 'ORGANIZATION_ALREADY_EXISTS'),
    },
  ],
  'POST /api/auth/organization/check-slug': ({ victim }) => [
    {
      attempt: "check A's slug",
      body: { slug: victim.slug },
      stranger: refused(400, 'SLUG_IS_TAKEN'),
    },
  ],
  'POST /api/auth/organization/update': ({ victim }) => [
    {
      attempt: "rename A and take its slug's place",
      body: { organizationId: victim.organizationId, data: { name: 'Owned', slug: 'owned' } },
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/delete': ({ victim }) => [
    {
      attempt: 'delete A',
      body: { organizationId: victim.organizationId },
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/list': () => [
    {
      attempt: 'list organizations',
      stranger: {
        own: "the caller's memberships",
        shows: ({ attacker }) => attacker.organizationId,
      },
    },
  ],
  'GET /api/auth/organization/get-full-organization': ({ victim }): AttackRequest[] => [
    {
      attempt: 'read A by id',
      query: { organizationId: victim.organizationId },
      stranger: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
    {
      attempt: 'read A by slug',
      query: { organizationSlug: victim.slug },
      stranger: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/set-active': ({ victim }) => [
    {
      attempt: 'make A active by id',
      body: { organizationId: victim.organizationId },
      stranger: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
    {
      attempt: 'make A active by slug',
      body: { organizationSlug: victim.slug },
      stranger: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/list-members': ({ victim }) => [
    {
      attempt: "list A's members",
      query: { organizationId: victim.organizationId },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
    {
      attempt: "list the members of A, A being the session's (stale) active organization",
      activeVictim: true,
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/get-active-member': () => [
    {
      attempt: 'read the own membership of the active organization',
      stranger: {
        own: "the caller's membership of their active organization",
        shows: ({ attacker }) => attacker.owner.memberId,
      },
    },
    {
      attempt: "read a membership of A, A being the session's (stale) active organization",
      activeVictim: true,
      stranger: { own: 'no membership: JSON null' },
    },
  ],
  'GET /api/auth/organization/get-active-member-role': ({ victim }) => [
    {
      attempt: "read the role of A's owner",
      query: { organizationId: victim.organizationId, userId: victim.owner.userId },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/remove-member': ({ victim, attacker }) => [
    {
      attempt: "remove A's admin by member id",
      body: { organizationId: victim.organizationId, memberIdOrEmail: victim.admin.memberId },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(401, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER'),
    },
    {
      attempt: "remove A's owner by email",
      body: { organizationId: victim.organizationId, memberIdOrEmail: victim.owner.email },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER'),
    },
    {
      attempt: "remove A's admin through B, where the attacker is owner",
      body: { organizationId: attacker.organizationId, memberIdOrEmail: victim.admin.memberId },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
    },
  ],
  'POST /api/auth/organization/update-member-role': ({ victim, attacker }) => [
    {
      attempt: "demote A's admin",
      body: {
        organizationId: victim.organizationId,
        memberId: victim.admin.memberId,
        role: 'member',
      },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER'),
    },
    {
      attempt: "demote A's owner through B, where the attacker is owner",
      body: {
        organizationId: attacker.organizationId,
        memberId: victim.owner.memberId,
        role: 'member',
      },
      stranger: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER'),
    },
    {
      attempt: 'promote oneself to owner of A',
      body: {
        organizationId: victim.organizationId,
        memberId: attacker.memberOfVictim.memberId,
        role: 'owner',
      },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER'),
    },
    {
      attempt: 'promote oneself to admin of A',
      body: {
        organizationId: victim.organizationId,
        memberId: attacker.memberOfVictim.memberId,
        role: 'admin',
      },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER'),
    },
  ],
  'POST /api/auth/organization/leave': ({ victim }) => [
    {
      attempt: 'leave A without belonging to it',
      body: { organizationId: victim.organizationId },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
    },
  ],
  'POST /api/auth/organization/has-permission': ({ victim }) => [
    {
      attempt: 'ask for permissions in A',
      body: { organizationId: victim.organizationId, permissions: { organization: ['delete'] } },
      stranger: refused(401, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/create-role': ({ victim }) => [
    {
      attempt: 'create a mighty role in A',
      body: {
        organizationId: victim.organizationId,
        role: 'backdoor',
        permission: { organization: ['delete'], member: ['update'] },
      },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE'),
    },
  ],
  'POST /api/auth/organization/update-role': ({ victim }) => [
    {
      attempt: "widen a role of A's",
      body: {
        organizationId: victim.organizationId,
        roleName: 'auditor',
        data: { permission: { organization: ['delete'] } },
      },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE'),
    },
  ],
  'POST /api/auth/organization/delete-role': ({ victim }) => [
    {
      attempt: "delete a role of A's",
      body: { organizationId: victim.organizationId, roleName: 'auditor' },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE'),
    },
  ],
  'GET /api/auth/organization/list-roles': ({ victim }) => [
    {
      attempt: "list A's roles",
      query: { organizationId: victim.organizationId },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
    {
      attempt: "list A's roles, A being the session's (stale) active organization",
      activeVictim: true,
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/get-role': ({ victim }) => [
    {
      attempt: "read a role of A's",
      query: { organizationId: victim.organizationId, roleName: 'auditor' },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/invite-member': ({ victim, attacker }) => [
    {
      attempt: 'invite oneself into A as owner',
      body: { organizationId: victim.organizationId, email: attacker.owner.email, role: 'owner' },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION'),
    },
    {
      attempt: "resend A's pending invitation",
      body: {
        organizationId: victim.organizationId,
        email: victim.invitation.email,
        role: 'admin',
        resend: true,
      },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION'),
    },
    {
      attempt: "invite into B with A's team",
      body: {
        organizationId: attacker.organizationId,
        email: 'accomplice@example.com',
        role: 'member',
        teamId: victim.supportTeamId,
      },
      stranger: refused(400, 'TEAM_NOT_FOUND'),
    },
  ],
  'GET /api/auth/organization/get-invitation': ({ victim }) => [
    {
      attempt: "read A's invitation",
      query: { id: victim.invitation.id },
      stranger: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
      member: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
    },
  ],
  'GET /api/auth/organization/list-invitations': ({ victim }) => [
    {
      attempt: "list A's invitations",
      query: { organizationId: victim.organizationId },
      stranger: refused(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/list-user-invitations': ({ victim }) => [
    {
      attempt: "list the invitations of A's invitee",
      query: { email: victim.invitation.email },
      stranger: refused(400, 'USER_EMAIL_CANNOT_BE_PASSED_FOR_CLIENT_SIDE_API_CALLS'),
      member: refused(400, 'USER_EMAIL_CANNOT_BE_PASSED_FOR_CLIENT_SIDE_API_CALLS'),
    },
    {
      attempt: 'list the own invitations',
      stranger: { own: "invitations to the caller's own email" },
    },
  ],
  'POST /api/auth/organization/accept-invitation': ({ victim }) => [
    {
      attempt: "accept A's invitation to someone else",
      body: { invitationId: victim.invitation.id },
      stranger: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
      member: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
    },
    {
      attempt: "accept A's invitation with a made-up link token",
      body: { invitationId: victim.invitation.id, token: `${victim.invitation.id}.forged` },
      stranger: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
    },
  ],
  'POST /api/auth/organization/reject-invitation': ({ victim }) => [
    {
      attempt: "reject A's invitation to someone else",
      body: { invitationId: victim.invitation.id },
      stranger: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
      member: refused(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'),
    },
  ],
  'POST /api/auth/organization/cancel-invitation': ({ victim }) => [
    {
      attempt: "cancel A's invitation",
      body: { invitationId: victim.invitation.id },
      stranger: refused(400, 'MEMBER_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION'),
    },
  ],
  'POST /api/auth/organization/create-team': ({ victim }) => [
    {
      attempt: 'create a team in A',
      body: { organizationId: victim.organizationId, name: 'Backdoor' },
      // Better Auth's refusal for a non-member here speaks of invitations.
      stranger: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/update-team': ({ victim, attacker }) => [
    {
      attempt: "rename A's team",
      body: {
        teamId: victim.supportTeamId,
        data: { organizationId: victim.organizationId, name: 'Owned' },
      },
      stranger: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM'),
    },
    {
      attempt: "rename A's team through B, where the attacker is owner",
      body: {
        teamId: victim.supportTeamId,
        data: { organizationId: attacker.organizationId, name: 'Owned' },
      },
      stranger: refused(400, 'TEAM_NOT_FOUND'),
    },
  ],
  'POST /api/auth/organization/remove-team': ({ victim, attacker }) => [
    {
      attempt: "remove A's team",
      body: { teamId: victim.supportTeamId, organizationId: victim.organizationId },
      stranger: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION'),
    },
    {
      attempt: "remove A's team through B, where the attacker is owner",
      body: { teamId: victim.supportTeamId, organizationId: attacker.organizationId },
      stranger: refused(400, 'TEAM_NOT_FOUND'),
    },
  ],
  'GET /api/auth/organization/list-teams': ({ victim }) => [
    {
      attempt: "list A's teams",
      query: { organizationId: victim.organizationId },
      stranger: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION'),
    },
  ],
  'GET /api/auth/organization/list-user-teams': () => [
    {
      attempt: 'list the own teams',
      stranger: {
        own: 'teams the caller is in, of organizations they belong to',
        shows: ({ attacker }) => attacker.defaultTeamId,
      },
    },
  ],
  'POST /api/auth/organization/set-active-team': ({ victim }) => [
    {
      attempt: "make A's team active",
      body: { teamId: victim.supportTeamId },
      stranger: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM'),
      member: refused(403, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM'),
    },
  ],
  'GET /api/auth/organization/list-team-members': ({ victim }) => [
    {
      attempt: "list the members of A's team",
      query: { teamId: victim.supportTeamId },
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM'),
      member: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM'),
    },
  ],
  'POST /api/auth/organization/add-team-member': ({ victim, attacker }) => [
    {
      attempt: "join A's team from B, where the attacker is owner",
      body: { teamId: victim.supportTeamId, userId: attacker.owner.userId },
      stranger: refused(400, 'TEAM_NOT_FOUND'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER'),
    },
    {
      attempt: "add A's owner to A's team, A being the session's (stale) active organization",
      body: { teamId: victim.supportTeamId, userId: victim.owner.userId },
      activeVictim: true,
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
  ],
  'POST /api/auth/organization/remove-team-member': ({ victim }) => [
    {
      attempt: "remove A's admin from A's team",
      body: { teamId: victim.supportTeamId, userId: victim.admin.userId },
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
      member: refused(403, 'YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER'),
    },
    {
      attempt: "remove A's admin from A's team, A being the session's (stale) active organization",
      body: { teamId: victim.supportTeamId, userId: victim.admin.userId },
      activeVictim: true,
      stranger: refused(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION'),
    },
  ],
};
