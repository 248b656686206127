import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { createDefaultTeam } from '../../../accounts/organization/teams.ts';
import { loadRuntimeConfig } from '../../../config/env.ts';
import {
  Member,
  Organization,
  Session,
  Team,
  TeamMember,
  User,
} from '../../../db/entities/index.ts';
import { startApiServer } from '../../server.ts';
import { browserAuthClient } from '../testing.ts';

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');

type Api = Awaited<ReturnType<typeof startApiServer>>;
type TeamsConfig = ReturnType<typeof loadRuntimeConfig>['auth']['teams'];

/** An error as Better Auth's client hands it over, with the fields the wire carried. */
const failure = (error: unknown) => error as { status: number; code?: string; message?: string };

function assertRefused(
  { data, error }: { data: unknown; error: unknown },
  status: number,
  message: keyof typeof organizationMessages,
) {
  assert.equal(data, null);
  assert.equal(failure(error)?.status, status);
  assert.equal(failure(error).message, organizationMessages[message]);
  assert.match(failure(error).code ?? '', /^[A-Z_]+$/);
}

/** The organization API with its teams settings overridden (limits, last-team rule). */
async function startApi(teams: Partial<TeamsConfig> = {}): Promise<Api> {
  const config = loadRuntimeConfig();
  return startApiServer(
    { ...config, auth: { ...config.auth, teams: { ...config.auth.teams, ...teams } } },
    { host: '127.0.0.1', port: 0 },
  );
}

/**
 * Users and organizations for the tests. Organizations and memberships are written with the ORM
 * (another part of the API creates them over HTTP), as organization create leaves them: the
 * owner, any other members, and the default team with the owner in it.
 */
function fixtures(api: Api) {
  const origin = new URL(api.config.api.publicUrl).origin;

  async function signedInUser(name: string) {
    const browser = browserAuthClient(api.url, origin);
    const email = `teams-${uniqueTag()}@example.com`;
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    return { ...browser, id: data?.user.id ?? '' };
  }
  type Someone = Awaited<ReturnType<typeof signedInUser>>;

  async function organization(owner: Someone, others: [Someone, string][] = []) {
    const em = api.orm.em.fork();
    const created = em.create(Organization, { name: `Org ${uniqueTag()}`, slug: uniqueTag() });
    em.create(Member, { organization: created, user: owner.id, role: 'owner' });
    for (const [someone, role] of others) {
      em.create(Member, { organization: created, user: someone.id, role });
    }
    const defaultTeam = createDefaultTeam(em, created, em.getReference(User, owner.id));
    await em.flush();
    return { id: created.id, name: created.name, defaultTeamId: defaultTeam.id };
  }

  /** What organization set-active does: the user's sessions get this active organization. */
  async function activate(someone: Someone, organizationId: string | null) {
    await api.orm.em
      .fork()
      .nativeUpdate(Session, { user: someone.id }, { activeOrganizationId: organizationId });
  }

  async function storedSession(someone: Someone) {
    return api.orm.em.fork().findOneOrFail(Session, { user: someone.id });
  }

  async function teamMemberIds(teamId: string) {
    const rows = await api.orm.em.fork().find(TeamMember, { team: teamId });
    return rows.map(({ user }) => user.id).sort();
  }

  async function addToTeam(teamId: string, someone: Someone) {
    const em = api.orm.em.fork();
    em.create(TeamMember, { team: teamId, user: someone.id });
    await em.flush();
  }

  return { origin, signedInUser, organization, activate, storedSession, teamMemberIds, addToTeam };
}

describe('teams through the Better Auth organization client', () => {
  let api: Api;
  let f: ReturnType<typeof fixtures>;

  before(async () => {
    api = await startApi();
    f = fixtures(api);
  });
  after(() => api.close());

  it('creates teams in the active or a named organization, answering the team', async () => {
    const owner = await f.signedInUser('Owner');
    const org = await f.organization(owner);
    const other = await f.organization(owner);
    await f.activate(owner, org.id);

    const before = Date.now();
    const { data, error } = await owner.client.organization.createTeam({ name: 'Support' });
    assert.equal(error, null);
    assert.equal(data?.name, 'Support');
    assert.equal(data?.organizationId, org.id);
    assert.ok(new Date(data?.createdAt ?? 0).getTime() >= before - 1000);
    assert.equal(String(data?.updatedAt), String(data?.createdAt));

    const named = await owner.client.organization.createTeam({
      name: 'Elsewhere',
      organizationId: other.id,
    });
    assert.equal(named.data?.organizationId, other.id);

    const stored = await api.orm.em.fork().findOneOrFail(Team, { id: data?.id ?? '' });
    assert.equal(stored.organization.id, org.id);
    // The creator is not put in the team they create, as in Better Auth.
    assert.deepEqual(await f.teamMemberIds(stored.id), []);
  });

  it('refuses an empty or missing name and a request without an organization', async () => {
    const owner = await f.signedInUser('Owner');
    await f.organization(owner);
    // (An empty body would make the client send a GET.)
    for (const body of [{ name: '' }, { name: 7 }, { organizationId: randomUUID() }]) {
      const { data, error } = await owner.client.organization.createTeam(body as { name: string });
      assert.equal(data, null);
      assert.equal(failure(error).status, 400);
      assert.equal(failure(error).code, 'VALIDATION_ERROR');
    }
    // No organization named and none active.
    assertRefused(
      await owner.client.organization.createTeam({ name: 'X' }),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
  });

  it('answers 401 with an empty body to every team route without a session', async () => {
    const { client } = browserAuthClient(api.url, f.origin);
    const teamId = randomUUID();
    const userId = randomUUID();
    const calls = {
      createTeam: () => client.organization.createTeam({ name: 'X', organizationId: teamId }),
      updateTeam: () => client.organization.updateTeam({ teamId, data: { name: 'X' } }),
      removeTeam: () => client.organization.removeTeam({ teamId, organizationId: teamId }),
      listTeams: () => client.organization.listTeams({ query: { organizationId: teamId } }),
      listUserTeams: () => client.organization.listUserTeams(),
      setActiveTeam: () => client.organization.setActiveTeam({ teamId }),
      listTeamMembers: () => client.organization.listTeamMembers({ query: { teamId } }),
      addTeamMember: () => client.organization.addTeamMember({ teamId, userId }),
      removeTeamMember: () => client.organization.removeTeamMember({ teamId, userId }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const { data, error } = await call();
      assert.equal(data, null, name);
      assert.equal(failure(error)?.status, 401, name);
      assert.equal(failure(error).code, undefined, name);
    }
    const raw = await fetch(`${api.url}/api/auth/organization/list-user-teams`);
    assert.equal(raw.status, 401);
    assert.equal(await raw.text(), '');
  });

  it('stops at the maximum number of teams when one is configured', async () => {
    const limited = await startApi({ maximumTeams: 2 });
    try {
      const lf = fixtures(limited);
      const owner = await lf.signedInUser('Owner');
      const org = await lf.organization(owner); // its default team is the first
      await lf.activate(owner, org.id);
      const second = await owner.client.organization.createTeam({ name: 'Second' });
      assert.equal(second.error, null);
      assertRefused(
        await owner.client.organization.createTeam({ name: 'Third' }),
        400,
        'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS',
      );
      assert.equal(await limited.orm.em.fork().count(Team, { organization: org.id }), 2);
    } finally {
      await limited.close();
    }
  });

  it('updates a team’s name, and refuses an empty name or dates', async () => {
    const owner = await f.signedInUser('Owner');
    const org = await f.organization(owner);
    await f.activate(owner, org.id);
    const created = await owner.client.organization.createTeam({ name: 'Old' });
    const teamId = created.data?.id ?? '';

    const { data, error } = await owner.client.organization.updateTeam({
      teamId,
      // Better Auth's client does not type `id`; the server ignores it.
      data: { name: 'New', id: randomUUID() } as { name: string },
    });
    assert.equal(error, null);
    assert.equal(data?.id, teamId);
    assert.equal(data?.name, 'New');
    assert.equal(data?.organizationId, org.id);
    assert.ok(new Date(data?.updatedAt ?? 0) > new Date(data?.createdAt ?? 0));
    assert.equal((await api.orm.em.fork().findOneOrFail(Team, { id: teamId })).name, 'New');

    for (const badData of [{ name: '' }, { name: 'X', createdAt: '2020-01-01' }]) {
      const refused = await owner.client.organization.updateTeam({
        teamId,
        data: badData as { name: string },
      });
      assert.equal(failure(refused.error).status, 400);
      assert.equal(failure(refused.error).code, 'VALIDATION_ERROR');
    }
    assertRefused(
      await owner.client.organization.updateTeam({ teamId: randomUUID(), data: { name: 'X' } }),
      400,
      'TEAM_NOT_FOUND',
    );
    assertRefused(
      await owner.client.organization.updateTeam({ teamId: 'not-a-uuid', data: { name: 'X' } }),
      400,
      'TEAM_NOT_FOUND',
    );
    await f.activate(owner, null);
    assertRefused(
      await owner.client.organization.updateTeam({ teamId, data: { name: 'X' } }),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
    // Naming the organization in `data` stands for the active one.
    const named = await owner.client.organization.updateTeam({
      teamId,
      data: { name: 'Named', organizationId: org.id },
    });
    assert.equal(named.data?.name, 'Named');
  });

  it('removes a team and its memberships, but never the last one', async () => {
    const owner = await f.signedInUser('Owner');
    const colleague = await f.signedInUser('Colleague');
    const org = await f.organization(owner, [[colleague, 'member']]);
    await f.activate(owner, org.id);
    const extra = await owner.client.organization.createTeam({ name: 'Extra' });
    const extraId = extra.data?.id ?? '';
    await f.addToTeam(extraId, colleague);
    // The colleague's session has the team active: removing the team clears that.
    await api.orm.em
      .fork()
      .nativeUpdate(Session, { user: colleague.id }, { activeTeamId: extraId });

    assertRefused(
      await owner.client.organization.removeTeam({ teamId: randomUUID() }),
      400,
      'TEAM_NOT_FOUND',
    );
    const { data, error } = await owner.client.organization.removeTeam({ teamId: extraId });
    assert.equal(error, null);
    assert.deepEqual(data, { message: 'Team removed successfully.' });
    assert.equal(await api.orm.em.fork().count(Team, { id: extraId }), 0);
    assert.deepEqual(await f.teamMemberIds(extraId), []);
    assert.equal((await f.storedSession(colleague)).activeTeamId, null);

    assertRefused(
      await owner.client.organization.removeTeam({
        teamId: org.defaultTeamId,
        organizationId: org.id,
      }),
      400,
      'UNABLE_TO_REMOVE_LAST_TEAM',
    );
    assert.equal(await api.orm.em.fork().count(Team, { organization: org.id }), 1);
  });

  it('refuses to remove the team the caller’s session has active', async () => {
    const owner = await f.signedInUser('Owner');
    const org = await f.organization(owner);
    await f.activate(owner, org.id);
    const extra = await owner.client.organization.createTeam({ name: 'Extra' });
    await f.addToTeam(extra.data?.id ?? '', owner);
    await owner.client.organization.setActiveTeam({ teamId: extra.data?.id ?? '' });
    assertRefused(
      await owner.client.organization.removeTeam({ teamId: extra.data?.id ?? '' }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM',
    );
    assert.equal(await api.orm.em.fork().count(Team, { id: extra.data?.id ?? '' }), 1);
  });

  it('removes the last team when allowRemovingAllTeams is set', async () => {
    const permissive = await startApi({ allowRemovingAllTeams: true });
    try {
      const pf = fixtures(permissive);
      const owner = await pf.signedInUser('Owner');
      const org = await pf.organization(owner);
      await pf.activate(owner, org.id);
      const { error } = await owner.client.organization.removeTeam({ teamId: org.defaultTeamId });
      assert.equal(error, null);
      assert.equal(await permissive.orm.em.fork().count(Team, { organization: org.id }), 0);
    } finally {
      await permissive.close();
    }
  });

  it('lists an organization’s teams, oldest first', async () => {
    const owner = await f.signedInUser('Owner');
    const colleague = await f.signedInUser('Colleague');
    const org = await f.organization(owner, [[colleague, 'member']]);
    await f.activate(owner, org.id);
    const second = await owner.client.organization.createTeam({ name: 'Second' });

    const { data, error } = await owner.client.organization.listTeams();
    assert.equal(error, null);
    assert.deepEqual(
      data?.map(({ id }) => id),
      [org.defaultTeamId, second.data?.id],
    );
    // A plain member may read them, naming the organization rather than having it active.
    const named = await colleague.client.organization.listTeams({
      query: { organizationId: org.id },
    });
    assert.equal(named.data?.length, 2);
    assertRefused(await colleague.client.organization.listTeams(), 400, 'NO_ACTIVE_ORGANIZATION');
  });

  it('lists the caller’s teams across organizations, and sets and clears the active team', async () => {
    const owner = await f.signedInUser('Owner');
    const first = await f.organization(owner);
    const second = await f.organization(owner);
    await f.activate(owner, first.id);
    await owner.client.organization.createTeam({ name: 'Not mine' });

    const mine = await owner.client.organization.listUserTeams();
    assert.equal(mine.error, null);
    assert.deepEqual(
      mine.data?.map(({ id }) => id).sort(),
      [first.defaultTeamId, second.defaultTeamId].sort(),
    );

    const set = await owner.client.organization.setActiveTeam({ teamId: second.defaultTeamId });
    assert.equal(set.error, null);
    assert.equal(set.data?.id, second.defaultTeamId);
    assert.equal((await f.storedSession(owner)).activeTeamId, second.defaultTeamId);
    const session = await owner.client.getSession();
    assert.equal(
      (session.data?.session as { activeTeamId?: string } | undefined)?.activeTeamId,
      second.defaultTeamId,
    );

    // No team named: the active one is checked again and answered. (The client sends an empty
    // body as a GET, so this takes a plain request.)
    const setActiveTeamUrl = `${api.url}/api/auth/organization/set-active-team`;
    const postEmpty = () =>
      owner.fetch(setActiveTeamUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    const again = await postEmpty();
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { id: string }).id, second.defaultTeamId);
    // The session changed: its cookie is sent again, as Better Auth does.
    assert.match(again.headers.getSetCookie().join('\n'), /^better-auth\.session_token=/);

    const cleared = await owner.client.organization.setActiveTeam({ teamId: null });
    assert.equal(cleared.error, null);
    assert.equal(cleared.data, null);
    assert.equal((await f.storedSession(owner)).activeTeamId, null);
    const clearedAgain = await owner.fetch(setActiveTeamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"teamId":null}',
    });
    assert.equal(clearedAgain.status, 200);
    assert.equal(clearedAgain.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await clearedAgain.text(), 'null');
    // Nothing to clear, nothing changed: no cookie.
    assert.deepEqual(clearedAgain.headers.getSetCookie(), []);
    const nothing = await postEmpty();
    assert.equal(nothing.status, 200);
    assert.equal(await nothing.text(), 'null');

    assertRefused(
      await owner.client.organization.setActiveTeam({ teamId: randomUUID() }),
      400,
      'TEAM_NOT_FOUND',
    );
  });

  it('lets only a team’s members set it active or list its members', async () => {
    const owner = await f.signedInUser('Owner');
    const colleague = await f.signedInUser('Colleague');
    const org = await f.organization(owner, [[colleague, 'member']]);
    await f.activate(colleague, org.id);

    assertRefused(
      await colleague.client.organization.setActiveTeam({ teamId: org.defaultTeamId }),
      403,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
    assert.equal((await f.storedSession(colleague)).activeTeamId, null);
    assertRefused(
      await colleague.client.organization.listTeamMembers({
        query: { teamId: org.defaultTeamId },
      }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
    assertRefused(
      await colleague.client.organization.listTeamMembers(),
      400,
      'YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM',
    );

    await f.addToTeam(org.defaultTeamId, colleague);
    await colleague.client.organization.setActiveTeam({ teamId: org.defaultTeamId });
    // Without a team named, the active team's members.
    const { data, error } = await colleague.client.organization.listTeamMembers();
    assert.equal(error, null);
    assert.deepEqual(
      data?.map(({ userId, teamId }) => ({ userId, teamId })),
      [
        { userId: owner.id, teamId: org.defaultTeamId },
        { userId: colleague.id, teamId: org.defaultTeamId },
      ],
    );
  });

  it('adds and removes team members in the active organization', async () => {
    const owner = await f.signedInUser('Owner');
    const colleague = await f.signedInUser('Colleague');
    const outsider = await f.signedInUser('Outsider');
    const org = await f.organization(owner, [[colleague, 'member']]);
    await f.activate(owner, org.id);
    const teamId = org.defaultTeamId;

    const added = await owner.client.organization.addTeamMember({ teamId, userId: colleague.id });
    assert.equal(added.error, null);
    assert.equal(added.data?.teamId, teamId);
    assert.equal(added.data?.userId, colleague.id);
    assert.deepEqual(await f.teamMemberIds(teamId), [owner.id, colleague.id].sort());
    // Adding again answers the same membership.
    const again = await owner.client.organization.addTeamMember({ teamId, userId: colleague.id });
    assert.equal(again.data?.id, added.data?.id);

    assertRefused(
      await owner.client.organization.addTeamMember({ teamId, userId: outsider.id }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
    );
    assertRefused(
      await owner.client.organization.addTeamMember({ teamId, userId: 'not-a-uuid' }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
    );
    assertRefused(
      await owner.client.organization.addTeamMember({ teamId: randomUUID(), userId: owner.id }),
      400,
      'TEAM_NOT_FOUND',
    );

    // The colleague has the team active; losing their place there clears it.
    await api.orm.em.fork().nativeUpdate(Session, { user: colleague.id }, { activeTeamId: teamId });
    const removed = await owner.client.organization.removeTeamMember({
      teamId,
      userId: colleague.id,
    });
    assert.equal(removed.error, null);
    assert.deepEqual(removed.data, { message: 'Team member removed successfully.' });
    assert.deepEqual(await f.teamMemberIds(teamId), [owner.id]);
    assert.equal((await f.storedSession(colleague)).activeTeamId, null);
    assertRefused(
      await owner.client.organization.removeTeamMember({ teamId, userId: colleague.id }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
    assertRefused(
      await owner.client.organization.removeTeamMember({ teamId, userId: outsider.id }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
    );

    await f.activate(owner, null);
    assertRefused(
      await owner.client.organization.addTeamMember({ teamId, userId: colleague.id }),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
    assertRefused(
      await owner.client.organization.removeTeamMember({ teamId, userId: owner.id }),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
  });

  it('stops at the maximum members per team when one is configured', async () => {
    const limited = await startApi({ maximumMembersPerTeam: 2 });
    try {
      const lf = fixtures(limited);
      const owner = await lf.signedInUser('Owner');
      const second = await lf.signedInUser('Second');
      const third = await lf.signedInUser('Third');
      const org = await lf.organization(owner, [
        [second, 'member'],
        [third, 'member'],
      ]);
      await lf.activate(owner, org.id);
      const teamId = org.defaultTeamId; // the owner is its first member
      const added = await owner.client.organization.addTeamMember({ teamId, userId: second.id });
      assert.equal(added.error, null);
      assertRefused(
        await owner.client.organization.addTeamMember({ teamId, userId: third.id }),
        403,
        'TEAM_MEMBER_LIMIT_REACHED',
      );
      assert.deepEqual(await lf.teamMemberIds(teamId), [owner.id, second.id].sort());
      // Someone already in the full team is still answered.
      const again = await owner.client.organization.addTeamMember({ teamId, userId: second.id });
      assert.equal(again.data?.id, added.data?.id);
    } finally {
      await limited.close();
    }
  });

  it('lets an admin manage teams, and a plain member none of it', async () => {
    const owner = await f.signedInUser('Owner');
    const admin = await f.signedInUser('Admin');
    const member = await f.signedInUser('Member');
    const org = await f.organization(owner, [
      [admin, 'admin'],
      [member, 'member'],
    ]);
    await f.activate(admin, org.id);
    await f.activate(member, org.id);
    const teamId = org.defaultTeamId;

    const created = await admin.client.organization.createTeam({ name: 'By admin' });
    assert.equal(created.error, null);
    const renamed = await admin.client.organization.updateTeam({
      teamId,
      data: { name: 'Renamed by admin' },
    });
    assert.equal(renamed.error, null);
    const added = await admin.client.organization.addTeamMember({ teamId, userId: member.id });
    assert.equal(added.error, null);

    assertRefused(
      await member.client.organization.createTeam({ name: 'By member' }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION',
    );
    assertRefused(
      await member.client.organization.updateTeam({ teamId, data: { name: 'By member' } }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM',
    );
    assertRefused(
      await member.client.organization.removeTeam({ teamId: created.data?.id ?? '' }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION',
    );
    assertRefused(
      await member.client.organization.addTeamMember({ teamId, userId: admin.id }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER',
    );
    assertRefused(
      await member.client.organization.removeTeamMember({ teamId, userId: owner.id }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER',
    );
    // Nothing the member tried changed anything.
    const em = api.orm.em.fork();
    assert.equal(await em.count(Team, { organization: org.id }), 2);
    assert.equal((await em.findOneOrFail(Team, { id: teamId })).name, 'Renamed by admin');
    assert.deepEqual(await f.teamMemberIds(teamId), [owner.id, member.id].sort());

    const removed = await admin.client.organization.removeTeam({ teamId: created.data?.id ?? '' });
    assert.equal(removed.error, null);
  });

  it('keeps a member of one organization out of another’s teams, by guessed or real ids', async () => {
    const ownerA = await f.signedInUser('Owner A');
    const ownerB = await f.signedInUser('Owner B');
    const memberB = await f.signedInUser('Member B');
    const orgA = await f.organization(ownerA);
    const orgB = await f.organization(ownerB, [[memberB, 'member']]);
    await f.activate(ownerA, orgA.id);
    const teamB = orgB.defaultTeamId;
    const extraB = await ownerB.client.organization.createTeam({
      name: 'B extra',
      organizationId: orgB.id,
    });
    const extraBId = extraB.data?.id ?? '';
    const { client } = ownerA;

    for (const organizationId of [orgB.id, randomUUID(), 'guess']) {
      assertRefused(
        await client.organization.createTeam({ name: 'Intruder', organizationId }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
      );
      assertRefused(
        await client.organization.listTeams({ query: { organizationId } }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION',
      );
      assertRefused(
        await client.organization.updateTeam({
          teamId: teamB,
          data: { name: 'x', organizationId },
        }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM',
      );
      assertRefused(
        await client.organization.removeTeam({ teamId: extraBId, organizationId }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM',
      );
    }
    // B's team ids under A's own (active) organization name nothing there.
    assertRefused(
      await client.organization.updateTeam({ teamId: teamB, data: { name: 'x' } }),
      400,
      'TEAM_NOT_FOUND',
    );
    assertRefused(
      await client.organization.removeTeam({ teamId: extraBId }),
      400,
      'TEAM_NOT_FOUND',
    );
    assertRefused(
      await client.organization.addTeamMember({ teamId: teamB, userId: ownerA.id }),
      400,
      'TEAM_NOT_FOUND',
    );
    assertRefused(
      await client.organization.addTeamMember({ teamId: teamB, userId: memberB.id }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
    );
    assertRefused(
      await client.organization.removeTeamMember({ teamId: teamB, userId: ownerB.id }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
    );
    assertRefused(
      await client.organization.setActiveTeam({ teamId: teamB }),
      403,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
    for (const teamId of [teamB, randomUUID(), 'guess']) {
      assertRefused(
        await client.organization.listTeamMembers({ query: { teamId } }),
        400,
        'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
      );
    }
    const mine = await client.organization.listUserTeams();
    assert.deepEqual(
      mine.data?.map(({ id }) => id),
      [orgA.defaultTeamId],
    );

    // B is untouched.
    const em = api.orm.em.fork();
    assert.equal(await em.count(Team, { organization: orgB.id }), 2);
    assert.equal((await em.findOneOrFail(Team, { id: teamB })).name, orgB.name);
    assert.deepEqual(await f.teamMemberIds(teamB), [ownerB.id]);
    assert.equal((await f.storedSession(ownerA)).activeTeamId, null);
  });

  it('forgets the teams of an organization the user no longer belongs to', async () => {
    const owner = await f.signedInUser('Owner');
    const leaver = await f.signedInUser('Leaver');
    const org = await f.organization(owner, [[leaver, 'member']]);
    await f.addToTeam(org.defaultTeamId, leaver);
    // The membership goes, the team membership row is left behind.
    await api.orm.em.fork().nativeDelete(Member, { user: leaver.id, organization: org.id });

    const mine = await leaver.client.organization.listUserTeams();
    assert.deepEqual(mine.data, []);
    assertRefused(
      await leaver.client.organization.setActiveTeam({ teamId: org.defaultTeamId }),
      403,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
    assertRefused(
      await leaver.client.organization.listTeamMembers({ query: { teamId: org.defaultTeamId } }),
      400,
      'USER_IS_NOT_A_MEMBER_OF_THE_TEAM',
    );
  });
});
