import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { authMessages } from '../../../accounts/errors.ts';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { addMember } from '../../../accounts/organization/members.ts';
import { authSettings } from '../../../accounts/settings.ts';
import type { AppError } from '../../../core/errors.ts';
import { Member, Session, Team, TeamMember } from '../../../db/entities/index.ts';
import { startTestApi } from '../../testing.ts';
import { browserAuthClient } from '../testing.ts';

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');

type Api = Awaited<ReturnType<typeof startTestApi>>;
type Answer = { data: unknown; error: unknown };

/** An error as Better Auth's client hands it over, with the fields the wire carried. */
const failure = (error: unknown) => error as { status: number; code?: string; message?: string };

function refusedWith(
  { data, error }: Answer,
  status: number,
  key: keyof typeof organizationMessages,
) {
  assert.equal(data, null);
  assert.equal(failure(error)?.status, status, JSON.stringify(error));
  assert.equal(failure(error).message, organizationMessages[key]);
}

describe('organization members through the Better Auth client', () => {
  let api: Api;
  let origin: string;

  before(async () => {
    api = await startTestApi();
    origin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  const settings = () => authSettings(api.config);

  async function signedInUser(name: string) {
    const browser = browserAuthClient(api.url, origin);
    const email = `members-${uniqueTag()}@example.com`;
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    const activeOrganizationId = async () => {
      const { data: session } = await browser.client.getSession();
      const fields = session?.session as { activeOrganizationId?: string | null } | undefined;
      return fields?.activeOrganizationId;
    };
    return { ...browser, id: data?.user.id ?? '', email, name, activeOrganizationId };
  }
  type User = Awaited<ReturnType<typeof signedInUser>>;

  const join = (user: User, organizationId: string, role: string | string[], teamId?: string) =>
    addMember(api.orm.em.fork(), settings(), { userId: user.id, organizationId, role, teamId });

  /** An organization with an owner, an admin and a plain member, each with it active. */
  async function organizationWithStaff() {
    const owner = await signedInUser('Owner');
    const admin = await signedInUser('Admin');
    const member = await signedInUser('Member');
    const { data } = await owner.client.organization.create({
      name: 'Staffed',
      slug: `staffed-${uniqueTag()}`,
    });
    const organizationId = data?.id ?? '';
    const ownerMemberId = data?.members[0]?.id ?? '';
    const adminMember = await join(admin, organizationId, 'admin');
    const plainMember = await join(member, organizationId, 'member');
    for (const user of [admin, member]) {
      await user.client.organization.setActive({ organizationId });
    }
    return {
      organizationId,
      owner,
      admin,
      member,
      ids: { owner: ownerMemberId, admin: adminMember.id, member: plainMember.id },
    };
  }

  describe('add-member (server only)', () => {
    it('is not routed over HTTP', async () => {
      const { owner, organizationId } = await organizationWithStaff();
      const outsider = await signedInUser('Outsider');
      const response = await owner.fetch(`${api.url}/api/auth/organization/add-member`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userId: outsider.id, role: 'member', organizationId }),
      });
      assert.equal(response.status, 404);
      assert.equal(await api.orm.em.fork().count(Member, { user: outsider.id }), 0);
    });

    it('adds a member, into a team if asked, with comma-joined roles', async () => {
      const { organizationId } = await organizationWithStaff();
      const newcomer = await signedInUser('Newcomer');
      const team = await api.orm.em.fork().findOneOrFail(Team, { organization: organizationId });
      const member = await join(newcomer, organizationId, ['admin', 'member'], team.id);
      assert.equal(member.role, 'admin,member');
      const em = api.orm.em.fork();
      assert.equal(await em.count(Member, { user: newcomer.id, organization: organizationId }), 1);
      assert.equal(await em.count(TeamMember, { user: newcomer.id, team }), 1);
    });

    it('refuses duplicates, unknown users, organizations, teams and roles', async () => {
      const { organizationId, owner, member } = await organizationWithStaff();
      const newcomer = await signedInUser('Newcomer');
      const { data: other } = await owner.client.organization.create({
        name: 'Other',
        slug: `other-${uniqueTag()}`,
        keepCurrentActiveOrganization: true,
      });
      const otherTeam = await api.orm.em.fork().findOneOrFail(Team, { organization: other?.id });
      const cases = [
        [
          { userId: member.id, organizationId },
          organizationMessages.USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION,
        ],
        [{ userId: randomUUID(), organizationId }, authMessages.USER_NOT_FOUND],
        [
          { userId: newcomer.id, organizationId: randomUUID() },
          organizationMessages.ORGANIZATION_NOT_FOUND,
        ],
        [
          { userId: newcomer.id, organizationId: 'nope' },
          organizationMessages.ORGANIZATION_NOT_FOUND,
        ],
        [
          { userId: newcomer.id, organizationId, teamId: otherTeam.id },
          organizationMessages.TEAM_NOT_FOUND,
        ],
        [
          { userId: newcomer.id, organizationId, role: 'wizard' },
          organizationMessages.ROLE_NOT_FOUND,
        ],
      ] as const;
      for (const [input, message] of cases) {
        await assert.rejects(
          addMember(api.orm.em.fork(), settings(), { role: 'member', ...input }),
          { message },
        );
      }
      assert.equal(await api.orm.em.fork().count(Member, { user: newcomer.id }), 0);
    });

    it('stops at the membership limit, also under concurrent additions', async () => {
      const { organizationId } = await organizationWithStaff();
      const limited = {
        ...settings(),
        organizations: { organizationLimit: undefined, membershipLimit: 5 },
      };
      const newcomers = await Promise.all([1, 2, 3, 4].map((n) => signedInUser(`New ${n}`)));
      const results = await Promise.allSettled(
        newcomers.map((user) =>
          addMember(api.orm.em.fork(), limited, {
            userId: user.id,
            organizationId,
            role: 'member',
          }),
        ),
      );
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 2);
      for (const result of results.filter((each) => each.status === 'rejected')) {
        assert.equal(
          (result.reason as Error).message,
          organizationMessages.ORGANIZATION_MEMBERSHIP_LIMIT_REACHED,
        );
        assert.equal((result.reason as AppError).refusal, 'forbidden');
      }
      assert.equal(await api.orm.em.fork().count(Member, { organization: organizationId }), 5);
    });
  });

  describe('list-members', () => {
    it('lists members with their users, paged, sorted and filtered', async () => {
      const { organizationId, owner, admin, member } = await organizationWithStaff();
      const { data, error } = await member.client.organization.listMembers();
      assert.equal(error, null);
      assert.equal(data?.total, 3);
      assert.deepEqual(
        data?.members.map(({ role, userId, organizationId: id }) => [role, userId, id]),
        [
          ['owner', owner.id, organizationId],
          ['admin', admin.id, organizationId],
          ['member', member.id, organizationId],
        ],
      );
      assert.deepEqual(data?.members[1]?.user, {
        id: admin.id,
        name: 'Admin',
        email: admin.email,
        image: null,
      });

      const page = await owner.client.organization.listMembers({
        query: { limit: 1, offset: 1, sortBy: 'createdAt', sortDirection: 'desc' },
      });
      assert.equal(page.data?.total, 3);
      assert.deepEqual(
        page.data?.members.map((each) => each.userId),
        [admin.id],
      );

      const admins = await owner.client.organization.listMembers({
        query: { filterField: 'role', filterValue: 'admin', organizationId },
      });
      assert.deepEqual(
        admins.data?.members.map((each) => each.userId),
        [admin.id],
      );
      assert.equal(admins.data?.total, 1);
      const notOwners = await owner.client.organization.listMembers({
        query: { filterField: 'role', filterOperator: 'ne', filterValue: 'owner' },
      });
      assert.equal(notOwners.data?.total, 2);
      const byUser = await owner.client.organization.listMembers({
        query: { filterField: 'userId', filterValue: member.id },
      });
      assert.deepEqual(
        byUser.data?.members.map((each) => each.role),
        ['member'],
      );
    });

    it('refuses bad queries, no active organization and outsiders', async () => {
      const { organizationId, owner } = await organizationWithStaff();
      const badQueries = [
        { limit: 'many' },
        { sortBy: 'password' },
        { filterField: 'userId', filterValue: 'not-a-uuid' },
        { filterField: 'userId', filterOperator: 'contains', filterValue: randomUUID() },
      ];
      for (const query of badQueries) {
        const { error } = await owner.client.organization.listMembers({ query: query as never });
        assert.equal(failure(error).status, 400, JSON.stringify(query));
        assert.equal(failure(error).code, 'VALIDATION_ERROR');
      }
      const outsider = await signedInUser('Outsider');
      refusedWith(await outsider.client.organization.listMembers(), 400, 'NO_ACTIVE_ORGANIZATION');
      refusedWith(
        await outsider.client.organization.listMembers({ query: { organizationId } }),
        403,
        'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
      );
    });
  });

  it('get-active-member answers the caller’s membership, or null', async () => {
    const { organizationId, admin } = await organizationWithStaff();
    const { data, error } = await admin.client.organization.getActiveMember();
    assert.equal(error, null);
    assert.equal(data?.organizationId, organizationId);
    assert.equal(data?.role, 'admin');
    assert.equal(data?.user.email, admin.email);
    const outsider = await signedInUser('Outsider');
    const none = await outsider.client.organization.getActiveMember();
    assert.equal(none.error, null);
    assert.equal(none.data, null);
  });

  it('get-active-member-role answers roles to members only', async () => {
    const { organizationId, owner, member } = await organizationWithStaff();
    const own = await member.client.organization.getActiveMemberRole();
    assert.deepEqual(own.data, { role: 'member' });
    const ownersRole = await member.client.organization.getActiveMemberRole({
      query: { userId: owner.id },
    });
    assert.deepEqual(ownersRole.data, { role: 'owner' });
    const outsider = await signedInUser('Outsider');
    refusedWith(
      await outsider.client.organization.getActiveMemberRole(),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
    refusedWith(
      await outsider.client.organization.getActiveMemberRole({
        query: { organizationId, userId: owner.id },
      }),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
  });

  describe('update-member-role', () => {
    it('lets owners and admins change roles, joining lists with commas', async () => {
      const { owner, admin, ids } = await organizationWithStaff();
      const promoted = await owner.client.organization.updateMemberRole({
        memberId: ids.member,
        role: ['admin', 'member'],
      });
      assert.equal(promoted.error, null);
      assert.equal(promoted.data?.id, ids.member);
      assert.equal(promoted.data?.role, 'admin,member');
      const demoted = await admin.client.organization.updateMemberRole({
        memberId: ids.member,
        role: 'member',
      });
      assert.equal(demoted.data?.role, 'member');
      const stored = await api.orm.em.fork().findOneOrFail(Member, ids.member);
      assert.equal(stored.role, 'member');
    });

    it('guards owners: admins cannot touch them and the only owner cannot step down', async () => {
      const { owner, admin, member, ids } = await organizationWithStaff();
      refusedWith(
        await admin.client.organization.updateMemberRole({ memberId: ids.owner, role: 'member' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
      refusedWith(
        await admin.client.organization.updateMemberRole({ memberId: ids.member, role: 'owner' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
      refusedWith(
        await owner.client.organization.updateMemberRole({ memberId: ids.owner, role: 'admin' }),
        400,
        'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER',
      );
      // A second owner: the first may then step down.
      await owner.client.organization.updateMemberRole({ memberId: ids.admin, role: 'owner' });
      const steppedDown = await owner.client.organization.updateMemberRole({
        memberId: ids.owner,
        role: 'admin',
      });
      assert.equal(steppedDown.data?.role, 'admin');
      refusedWith(
        await member.client.organization.updateMemberRole({ memberId: ids.member, role: 'admin' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
    });

    it('refuses plain members, unknown roles and members, and an empty role', async () => {
      const { owner, member, ids } = await organizationWithStaff();
      refusedWith(
        await member.client.organization.updateMemberRole({ memberId: ids.admin, role: 'member' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
      refusedWith(
        await owner.client.organization.updateMemberRole({ memberId: ids.member, role: 'wizard' }),
        400,
        'ROLE_NOT_FOUND',
      );
      for (const memberId of [randomUUID(), 'nope']) {
        refusedWith(
          await owner.client.organization.updateMemberRole({ memberId, role: 'admin' }),
          400,
          'MEMBER_NOT_FOUND',
        );
      }
      const empty = await owner.client.organization.updateMemberRole({
        memberId: ids.member,
        role: '',
      });
      assert.equal(failure(empty.error).status, 400);
      const stored = await api.orm.em.fork().find(Member, [ids.admin, ids.member]);
      assert.deepEqual(stored.map((each) => each.role).sort(), ['admin', 'member']);
    });

    it('lets any one of comma-separated roles grant', async () => {
      const { organizationId, member, ids } = await organizationWithStaff();
      const em = api.orm.em.fork();
      await em.nativeUpdate(Member, ids.member, { role: 'member,admin' });
      const updated = await member.client.organization.update({
        data: { name: 'By a member-admin' },
        organizationId,
      });
      assert.equal(updated.error, null);
      const { data } = await member.client.organization.hasPermission({
        permissions: { member: ['update'] },
      });
      assert.deepEqual(data, { error: null, success: true });
    });
  });

  describe('remove-member', () => {
    it('removes by id or email, with the removed member’s teams and active organization', async () => {
      const { organizationId, owner, admin, member, ids } = await organizationWithStaff();
      const team = await api.orm.em.fork().findOneOrFail(Team, { organization: organizationId });
      const em = api.orm.em.fork();
      em.create(TeamMember, { team: team.id, user: member.id });
      await em.flush();
      const { data, error } = await admin.client.organization.removeMember({
        memberIdOrEmail: member.email.toUpperCase(),
      });
      assert.equal(error, null);
      assert.equal(data?.member.id, ids.member);
      // The client's type leaves out the user Better Auth answers with.
      const removed = data?.member as { user?: { email: string } } | undefined;
      assert.equal(removed?.user?.email, member.email);
      assert.equal(await em.count(Member, ids.member), 0);
      assert.equal(await em.count(TeamMember, { user: member.id }), 0);
      assert.equal(await member.activeOrganizationId(), null);

      const byId = await owner.client.organization.removeMember({
        memberIdOrEmail: ids.admin,
        organizationId,
      });
      assert.equal(byId.data?.member.userId, admin.id);
    });

    it('keeps the last owner, and owners from non-owners', async () => {
      const { owner, admin, member, ids } = await organizationWithStaff();
      for (const [caller, message] of [
        [admin, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER'],
        [member, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER'],
        [owner, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER'],
      ] as const) {
        refusedWith(
          await caller.client.organization.removeMember({ memberIdOrEmail: ids.owner }),
          400,
          message,
        );
      }
      // With a second owner, an owner may go; still only at an owner's hands.
      await owner.client.organization.updateMemberRole({ memberId: ids.admin, role: 'owner' });
      const removed = await admin.client.organization.removeMember({ memberIdOrEmail: ids.owner });
      assert.equal(removed.data?.member.userId, owner.id);
    });

    it('refuses plain members, unknown members and a missing active organization', async () => {
      const { member, owner, ids } = await organizationWithStaff();
      refusedWith(
        await member.client.organization.removeMember({ memberIdOrEmail: ids.admin }),
        401,
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER',
      );
      for (const memberIdOrEmail of [randomUUID(), 'nope', 'nobody@example.com']) {
        refusedWith(
          await owner.client.organization.removeMember({ memberIdOrEmail }),
          400,
          'MEMBER_NOT_FOUND',
        );
      }
      const loner = await signedInUser('Loner');
      const { data, error } = await loner.client.organization.removeMember({
        memberIdOrEmail: ids.admin,
      });
      assert.equal(error, null);
      assert.equal(data, null);
      assert.equal(await api.orm.em.fork().count(Member, [ids.admin, ids.member]), 2);
    });
  });

  describe('leave', () => {
    it('lets a member leave, forgetting the organization in their sessions', async () => {
      const { organizationId, member, ids } = await organizationWithStaff();
      const { data, error } = await member.client.organization.leave({ organizationId });
      assert.equal(error, null);
      assert.equal(data?.id, ids.member);
      assert.equal(data?.user.id, member.id);
      assert.equal(await member.activeOrganizationId(), null);
      assert.equal(await api.orm.em.fork().count(Member, ids.member), 0);
      refusedWith(
        await member.client.organization.leave({ organizationId }),
        400,
        'MEMBER_NOT_FOUND',
      );
    });

    it('keeps the only owner, but lets one of two go', async () => {
      const { organizationId, owner, ids } = await organizationWithStaff();
      refusedWith(
        await owner.client.organization.leave({ organizationId }),
        400,
        'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER',
      );
      await owner.client.organization.updateMemberRole({
        memberId: ids.admin,
        role: 'admin,owner',
      });
      const left = await owner.client.organization.leave({ organizationId });
      assert.equal(left.data?.role, 'owner');
      const sessions = await api.orm.em.fork().find(Session, { user: owner.id });
      assert.ok(sessions.every((session) => session.activeOrganizationId === null));
    });
  });

  describe('has-permission', () => {
    it('answers from the one permission matrix, by role', async () => {
      const { owner, admin, member } = await organizationWithStaff();
      const ask = async (user: User, permissions: Record<string, string[]>) =>
        (await user.client.organization.hasPermission({ permissions })).data?.success;
      assert.equal(await ask(owner, { organization: ['delete'] }), true);
      assert.equal(await ask(admin, { organization: ['delete'] }), false);
      assert.equal(await ask(admin, { organization: ['update'], member: ['delete'] }), true);
      assert.equal(await ask(member, { invitation: ['create'] }), false);
      assert.equal(await ask(member, { billing: ['read'] }), false);
      const deprecated = await admin.client.organization.hasPermission({
        permission: { invitation: ['cancel'] },
      } as never);
      assert.deepEqual(deprecated.data, { error: null, success: true });
    });

    it('refuses ambiguous bodies, no active organization and outsiders', async () => {
      const { organizationId, owner } = await organizationWithStaff();
      const ambiguous = { permission: { member: [] }, permissions: { member: [] } };
      for (const body of [{ organizationId }, ambiguous]) {
        const { error } = await owner.client.organization.hasPermission(body as never);
        assert.equal(failure(error).code, 'VALIDATION_ERROR');
      }
      const outsider = await signedInUser('Outsider');
      refusedWith(
        await outsider.client.organization.hasPermission({ permissions: { member: ['create'] } }),
        400,
        'NO_ACTIVE_ORGANIZATION',
      );
      refusedWith(
        await outsider.client.organization.hasPermission({
          permissions: { member: ['create'] },
          organizationId,
        }),
        401,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
    });
  });

  describe('a member of organization A against organization B', () => {
    it('can neither read nor change B’s members, with ids guessed or taken from B', async () => {
      const a = await organizationWithStaff();
      const b = await organizationWithStaff();
      const attacker = a.owner.client.organization;
      const target = { organizationId: b.organizationId };

      refusedWith(
        await attacker.listMembers({ query: target }),
        403,
        'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
      );
      refusedWith(
        await attacker.getActiveMemberRole({ query: { ...target, userId: b.owner.id } }),
        403,
        'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
      );
      refusedWith(
        await attacker.hasPermission({ permissions: { member: ['delete'] }, ...target }),
        401,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      // Naming B: A's owner is no member there.
      refusedWith(
        await attacker.removeMember({ memberIdOrEmail: b.ids.member, ...target }),
        400,
        'MEMBER_NOT_FOUND',
      );
      refusedWith(
        await attacker.updateMemberRole({ memberId: b.ids.member, role: 'admin', ...target }),
        400,
        'MEMBER_NOT_FOUND',
      );
      refusedWith(await attacker.leave(target), 400, 'MEMBER_NOT_FOUND');
      // Naming A (where they are owner) with B's member ids and emails.
      for (const memberIdOrEmail of [b.ids.member, b.ids.owner, b.member.email]) {
        refusedWith(await attacker.removeMember({ memberIdOrEmail }), 400, 'MEMBER_NOT_FOUND');
      }
      refusedWith(
        await attacker.updateMemberRole({ memberId: b.ids.owner, role: 'member' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
      // A guessed id names nothing anywhere.
      refusedWith(
        await attacker.removeMember({
          memberIdOrEmail: randomUUID(),
          organizationId: randomUUID(),
        }),
        400,
        'MEMBER_NOT_FOUND',
      );

      const em = api.orm.em.fork();
      const bMembers = await em.find(Member, { organization: b.organizationId });
      assert.deepEqual(bMembers.map((each) => each.role).sort(), ['admin', 'member', 'owner']);
      assert.equal(await b.member.activeOrganizationId(), b.organizationId);
    });

    it('a plain member cannot update, delete, change roles or remove others', async () => {
      const { organizationId, member, ids } = await organizationWithStaff();
      const client = member.client.organization;
      refusedWith(
        await client.update({ data: { name: 'Mine' } }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION',
      );
      refusedWith(
        await client.delete({ organizationId }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION',
      );
      refusedWith(
        await client.updateMemberRole({ memberId: ids.member, role: 'admin' }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER',
      );
      refusedWith(
        await client.removeMember({ memberIdOrEmail: ids.admin }),
        401,
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER',
      );
      const em = api.orm.em.fork();
      assert.equal(await em.count(Member, { organization: organizationId }), 3);
    });
  });
});
