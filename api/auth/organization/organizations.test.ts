import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { addMember } from '../../../accounts/organization/members.ts';
import { createOrganization } from '../../../accounts/organization/organizations.ts';
import { authSettings } from '../../../accounts/settings.ts';
import { loadRuntimeConfig } from '../../../config/env.ts';
import {
  Invitation,
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
const uniqueSlug = () => `org-${uniqueTag()}`;

type Api = Awaited<ReturnType<typeof startApiServer>>;
type Answer = { data: unknown; error: unknown };

/** An error as Better Auth's client hands it over, with the fields the wire carried. */
const failure = (error: unknown) => error as { status: number; code?: string; message?: string };

function assertRefused({ data, error }: Answer, status: number, message: string) {
  assert.equal(data, null);
  assert.equal(failure(error)?.status, status, JSON.stringify(error));
  assert.equal(failure(error).message, message);
}

const refusedWith = (answer: Answer, status: number, key: keyof typeof organizationMessages) =>
  assertRefused(answer, status, organizationMessages[key]);

function startApi(env: Record<string, string> = {}): Promise<Api> {
  return startApiServer(loadRuntimeConfig({ ...process.env, ...env }), {
    host: '127.0.0.1',
    port: 0,
  });
}

function fixtures(api: Api) {
  const origin = new URL(api.config.api.publicUrl).origin;
  const settings = authSettings(api.config);

  async function signedInUser(name: string) {
    const browser = browserAuthClient(api.url, origin);
    const email = `orgs-${uniqueTag()}@example.com`;
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    const activeOrganizationId = async () => {
      const { data: session } = await browser.client.getSession();
      const fields = session?.session as { activeOrganizationId?: string | null } | undefined;
      return fields?.activeOrganizationId;
    };
    return { ...browser, id: data?.user.id ?? '', email, activeOrganizationId };
  }

  /** An organization created over HTTP by `owner` (who then has it active). */
  async function organizationOf(
    owner: Pick<ReturnType<typeof browserAuthClient>, 'client'>,
    extra: { metadata?: Record<string, unknown> } = {},
  ) {
    const { data, error } = await owner.client.organization.create({
      name: 'Acme',
      slug: uniqueSlug(),
      ...extra,
    });
    assert.equal(error, null);
    return data as NonNullable<typeof data>;
  }

  const join = (user: { id: string }, organizationId: string, role: string) =>
    addMember(api.orm.em.fork(), settings, { userId: user.id, organizationId, role });

  return { origin, settings, signedInUser, organizationOf, join };
}

describe('organizations through the Better Auth client', () => {
  let api: Api;
  let f: ReturnType<typeof fixtures>;

  before(async () => {
    api = await startApi();
    f = fixtures(api);
  });
  after(() => api.close());

  describe('create', () => {
    it('makes the creator owner, creates the default team and activates both', async () => {
      const owner = await f.signedInUser('Owner');
      const slug = uniqueSlug();
      const { data, error } = await owner.client.organization.create({
        name: 'Acme',
        slug,
        logo: 'https://example.com/logo.png',
        metadata: { plan: 'pro', seats: 3 },
      });
      assert.equal(error, null);
      assert.equal(data?.name, 'Acme');
      assert.equal(data?.slug, slug);
      assert.equal(data?.logo, 'https://example.com/logo.png');
      assert.deepEqual(data?.metadata, { plan: 'pro', seats: 3 });
      assert.ok(data?.createdAt instanceof Date);
      assert.equal(data?.members.length, 1);
      assert.equal(data?.members[0]?.role, 'owner');
      assert.equal(data?.members[0]?.userId, owner.id);
      assert.equal(data?.members[0]?.organizationId, data?.id);

      const em = api.orm.em.fork();
      const stored = await em.findOneOrFail(Organization, data?.id ?? '');
      assert.equal(stored.metadata, JSON.stringify({ plan: 'pro', seats: 3 }));
      const teams = await em.find(Team, { organization: stored });
      assert.deepEqual(
        teams.map((team) => team.name),
        ['Acme'],
      );
      assert.equal(await em.count(TeamMember, { team: teams[0], user: owner.id }), 1);

      const { data: session } = await owner.client.getSession();
      const active = session?.session as { activeOrganizationId?: string; activeTeamId?: string };
      assert.equal(active.activeOrganizationId, data?.id);
      assert.equal(active.activeTeamId, teams[0]?.id);
    });

    it('keeps the current active organization when asked to', async () => {
      const owner = await f.signedInUser('Keeper');
      const first = await f.organizationOf(owner);
      const { error } = await owner.client.organization.create({
        name: 'Second',
        slug: uniqueSlug(),
        keepCurrentActiveOrganization: true,
      });
      assert.equal(error, null);
      assert.equal(await owner.activeOrganizationId(), first.id);
    });

    it('refuses a taken slug, also when two creations race', async () => {
      const owner = await f.signedInUser('Racer');
      const taken = await f.organizationOf(owner);
      refusedWith(
        await owner.client.organization.create({ name: 'Again', slug: taken.slug }),
        400,
        'ORGANIZATION_ALREADY_EXISTS',
      );
      const slug = uniqueSlug();
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => owner.client.organization.create({ name: 'Race', slug })),
      );
      assert.equal(answers.filter((answer) => answer.error === null).length, 1);
      for (const answer of answers.filter((each) => each.error !== null)) {
        refusedWith(answer, 400, 'ORGANIZATION_ALREADY_EXISTS');
      }
      assert.equal(await api.orm.em.fork().count(Organization, { slug }), 1);
    });

    it('validates the body before asking for a session, and needs one', async () => {
      const owner = await f.signedInUser('Validator');
      const bad = [
        { name: '', slug: uniqueSlug() },
        { name: 'No slug' },
        { name: 'Meta', slug: uniqueSlug(), metadata: 'not an object' },
      ];
      for (const body of bad) {
        const answer = await owner.client.organization.create(body as never);
        assert.equal(failure(answer.error).status, 400);
        assert.equal(failure(answer.error).code, 'VALIDATION_ERROR');
      }
      const anonymous = browserAuthClient(api.url, f.origin);
      const { error } = await anonymous.client.organization.create({
        name: 'x',
        slug: uniqueSlug(),
      });
      assert.equal(failure(error).status, 401);
    });

    it('creates nothing when a step fails', async () => {
      const owner = await f.signedInUser('Atomic');
      const taken = await f.organizationOf(owner);
      const user = await api.orm.em.fork().findOneOrFail(User, owner.id);
      await assert.rejects(
        createOrganization(api.orm.em.fork(), f.settings.organizations, user, {
          name: 'Clash',
          slug: taken.slug,
        }),
        { message: organizationMessages.ORGANIZATION_ALREADY_EXISTS },
      );
      const em = api.orm.em.fork();
      assert.equal(await em.count(Member, { user: owner.id }), 1);
      assert.equal(await em.count(Team, { name: 'Clash' }), 0);
    });
  });

  it('check-slug answers whether a slug is free', async () => {
    const owner = await f.signedInUser('Slugger');
    const taken = await f.organizationOf(owner);
    const free = await owner.client.organization.checkSlug({ slug: uniqueSlug() });
    assert.deepEqual(free.data, { status: true });
    const answer = await owner.client.organization.checkSlug({ slug: taken.slug });
    assertRefused(answer, 400, 'slug is taken');
    assert.equal(failure(answer.error).code, 'SLUG_IS_TAKEN');
    const anonymous = browserAuthClient(api.url, f.origin);
    assert.equal(
      failure((await anonymous.client.organization.checkSlug({ slug: 'x' })).error).status,
      401,
    );
  });

  describe('update', () => {
    it('lets owners and admins change name, slug, logo and metadata', async () => {
      const owner = await f.signedInUser('Owner');
      const admin = await f.signedInUser('Admin');
      const organization = await f.organizationOf(owner, { metadata: { a: 1 } });
      await f.join(admin, organization.id, 'admin');
      const slug = uniqueSlug();
      const { data, error } = await owner.client.organization.update({
        data: { name: 'Renamed', slug, logo: 'https://example.com/new.png', metadata: { b: 2 } },
      });
      assert.equal(error, null);
      assert.equal(data?.id, organization.id);
      assert.equal(data?.name, 'Renamed');
      assert.equal(data?.slug, slug);
      assert.equal(data?.logo, 'https://example.com/new.png');
      assert.deepEqual(data?.metadata, { b: 2 });
      const stored = await api.orm.em.fork().findOneOrFail(Organization, organization.id);
      assert.equal(stored.metadata, '{"b":2}');

      const byAdmin = await admin.client.organization.update({
        data: { name: 'By admin' },
        organizationId: organization.id,
      });
      assert.equal(byAdmin.error, null);
      assert.equal(byAdmin.data?.name, 'By admin');
      assert.equal(byAdmin.data?.slug, slug);
    });

    it('refuses plain members, outsiders, taken slugs and missing sessions', async () => {
      const owner = await f.signedInUser('Owner');
      const member = await f.signedInUser('Member');
      const organization = await f.organizationOf(owner);
      const other = await f.organizationOf(await f.signedInUser('Other owner'));
      await f.join(member, organization.id, 'member');
      refusedWith(
        await member.client.organization.update({
          data: { name: 'Mine now' },
          organizationId: organization.id,
        }),
        403,
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION',
      );
      refusedWith(
        await owner.client.organization.update({ data: { slug: other.slug } }),
        400,
        'ORGANIZATION_ALREADY_EXISTS',
      );
      // The member has no active organization: nothing is named.
      refusedWith(
        await member.client.organization.update({ data: { name: 'x' } }),
        400,
        'ORGANIZATION_NOT_FOUND',
      );
      const anonymous = browserAuthClient(api.url, f.origin);
      const { error } = await anonymous.client.organization.update({
        data: { name: 'x' },
        organizationId: organization.id,
      });
      assert.equal(failure(error).status, 401);
      assert.equal(failure(error).code, 'USER_NOT_FOUND');
      const stored = await api.orm.em.fork().findOneOrFail(Organization, organization.id);
      assert.equal(stored.name, 'Acme');
    });
  });

  describe('delete', () => {
    it('lets only an owner delete, and clears every session pointing at it', async () => {
      const owner = await f.signedInUser('Owner');
      const admin = await f.signedInUser('Admin');
      const member = await f.signedInUser('Member');
      const organization = await f.organizationOf(owner, { metadata: { keep: false } });
      await f.join(admin, organization.id, 'admin');
      await f.join(member, organization.id, 'member');
      await member.client.organization.setActive({ organizationId: organization.id });
      for (const refused of [admin, member]) {
        refusedWith(
          await refused.client.organization.delete({ organizationId: organization.id }),
          403,
          'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION',
        );
      }
      const { data, error } = await owner.client.organization.delete({
        organizationId: organization.id,
      });
      assert.equal(error, null);
      assert.equal((data as { id?: string }).id, organization.id);
      assert.deepEqual((data as { metadata?: unknown }).metadata, { keep: false });

      const em = api.orm.em.fork();
      assert.equal(await em.count(Organization, organization.id), 0);
      assert.equal(await em.count(Member, { organization: organization.id }), 0);
      assert.equal(await em.count(Team, { organization: organization.id }), 0);
      assert.equal(await owner.activeOrganizationId(), null);
      assert.equal(await member.activeOrganizationId(), null);
      const sessions = await em.find(Session, { user: [owner.id, member.id] });
      assert.ok(sessions.every((session) => session.activeTeamId === null));
    });

    it('answers Better Auth’s quirks: no session, empty id, not a member', async () => {
      const owner = await f.signedInUser('Owner');
      const organization = await f.organizationOf(owner);
      const anonymous = browserAuthClient(api.url, f.origin);
      const response = await anonymous.fetch(`${api.url}/api/auth/organization/delete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ organizationId: organization.id }),
      });
      assert.equal(response.status, 401);
      assert.deepEqual(await response.json(), { status: 401 });
      const empty = await owner.client.organization.delete({ organizationId: '' });
      assert.equal(empty.error, null);
      assert.equal(empty.data, null);
      const outsider = await f.signedInUser('Outsider');
      refusedWith(
        await outsider.client.organization.delete({ organizationId: organization.id }),
        400,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      assert.equal(await api.orm.em.fork().count(Organization, organization.id), 1);
    });
  });

  it('lists the organizations the user belongs to, and only those', async () => {
    const user = await f.signedInUser('Lister');
    const stranger = await f.signedInUser('Stranger');
    const own = await f.organizationOf(user, { metadata: { tier: 1 } });
    const joined = await f.organizationOf(stranger);
    await f.organizationOf(stranger);
    await f.join(user, joined.id, 'member');
    const { data, error } = await user.client.organization.list();
    assert.equal(error, null);
    assert.deepEqual(
      data?.map((organization) => organization.id).sort(),
      [own.id, joined.id].sort(),
    );
    assert.deepEqual(data?.find((organization) => organization.id === own.id)?.metadata, {
      tier: 1,
    });
    const anonymous = browserAuthClient(api.url, f.origin);
    assert.equal(failure((await anonymous.client.organization.list()).error).status, 401);
  });

  describe('get-full-organization', () => {
    it('answers the organization with its members, invitations and teams', async () => {
      const owner = await f.signedInUser('Owner');
      const member = await f.signedInUser('Member');
      const organization = await f.organizationOf(owner, { metadata: { x: 'y' } });
      await f.join(member, organization.id, 'member');
      const em = api.orm.em.fork();
      const invitation = em.create(Invitation, {
        organization: organization.id,
        email: 'Invitee@Example.com',
        role: 'admin',
        inviter: owner.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      await em.flush();

      const { data, error } = await owner.client.organization.getFullOrganization();
      assert.equal(error, null);
      assert.equal(data?.id, organization.id);
      assert.deepEqual(data?.metadata, { x: 'y' });
      assert.deepEqual(
        data?.members.map(({ role, userId, user }) => [
          role,
          userId,
          (user as { id?: string }).id,
          user.name,
        ]),
        [
          ['owner', owner.id, owner.id, 'Owner'],
          ['member', member.id, member.id, 'Member'],
        ],
      );
      assert.equal(data?.members[0]?.user.email, owner.email);
      assert.deepEqual(data?.invitations, [
        {
          id: invitation.id,
          organizationId: organization.id,
          email: 'invitee@example.com',
          role: 'admin',
          teamId: null,
          status: 'pending',
          expiresAt: invitation.expiresAt,
          inviterId: owner.id,
        },
      ]);
      assert.deepEqual(
        data?.teams?.map((team) => [team.name, team.organizationId]),
        [['Acme', organization.id]],
      );

      const bySlug = await member.client.organization.getFullOrganization({
        query: { organizationSlug: organization.slug, membersLimit: 1 },
      });
      assert.equal(bySlug.data?.id, organization.id);
      assert.equal(bySlug.data?.members.length, 1);
    });

    it('answers null without an active organization, and refuses unknown ids', async () => {
      const loner = await f.signedInUser('Loner');
      const { data, error } = await loner.client.organization.getFullOrganization();
      assert.equal(error, null);
      assert.equal(data, null);
      for (const organizationId of [randomUUID(), 'not-a-uuid']) {
        refusedWith(
          await loner.client.organization.getFullOrganization({ query: { organizationId } }),
          400,
          'ORGANIZATION_NOT_FOUND',
        );
      }
      refusedWith(
        await loner.client.organization.getFullOrganization({
          query: { organizationSlug: uniqueSlug() },
        }),
        400,
        'ORGANIZATION_NOT_FOUND',
      );
    });
  });

  describe('set-active', () => {
    it('switches by id or slug, re-sends the session cookie, and clears with null', async () => {
      const owner = await f.signedInUser('Switcher');
      const first = await f.organizationOf(owner);
      const second = await f.organizationOf(owner);
      assert.equal(await owner.activeOrganizationId(), second.id);

      let cookieSent = false;
      const byId = await owner.client.organization.setActive(
        { organizationId: first.id },
        {
          onResponse: ({ response }) => {
            cookieSent = response.headers
              .getSetCookie()
              .some((cookie) => cookie.startsWith('better-auth.session_token='));
          },
        },
      );
      assert.equal(byId.error, null);
      assert.equal(byId.data?.id, first.id);
      assert.ok(cookieSent);
      assert.equal(await owner.activeOrganizationId(), first.id);

      const bySlug = await owner.client.organization.setActive({ organizationSlug: second.slug });
      assert.equal(bySlug.data?.id, second.id);
      assert.equal(await owner.activeOrganizationId(), second.id);

      // With no field the client would send a GET: force the POST an app's empty call means.
      const again = await owner.client.organization.setActive({ fetchOptions: { method: 'POST' } });
      assert.equal(again.data?.id, second.id);

      const cleared = await owner.client.organization.setActive({ organizationId: null });
      assert.equal(cleared.error, null);
      assert.equal(cleared.data, null);
      assert.equal(await owner.activeOrganizationId(), null);
      const nothing = await owner.client.organization.setActive({
        fetchOptions: { method: 'POST' },
      });
      assert.equal(nothing.data, null);
    });

    it('refuses unknown slugs and organizations the user is not in', async () => {
      const user = await f.signedInUser('User');
      await f.organizationOf(user);
      refusedWith(
        await user.client.organization.setActive({ organizationSlug: uniqueSlug() }),
        400,
        'ORGANIZATION_NOT_FOUND',
      );
      refusedWith(
        await user.client.organization.setActive({ organizationId: randomUUID() }),
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      // As Better Auth: the refused switch leaves no active organization.
      assert.equal(await user.activeOrganizationId(), null);
    });
  });

  describe('a member of organization A against organization B', () => {
    it('can neither read nor change B, by id or by slug', async () => {
      const ownerOfA = await f.signedInUser('Owner A');
      const ownerOfB = await f.signedInUser('Owner B');
      const a = await f.organizationOf(ownerOfA);
      const b = await f.organizationOf(ownerOfB, { metadata: { secret: 'b' } });
      const client = ownerOfA.client.organization;

      refusedWith(
        await client.getFullOrganization({ query: { organizationId: b.id } }),
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      refusedWith(
        await client.getFullOrganization({ query: { organizationSlug: b.slug } }),
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      refusedWith(
        await client.update({ data: { name: 'Taken over' }, organizationId: b.id }),
        400,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      refusedWith(
        await client.delete({ organizationId: b.id }),
        400,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      refusedWith(
        await client.setActive({ organizationId: b.id }),
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      refusedWith(
        await client.setActive({ organizationSlug: b.slug }),
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      );
      const { data: listed } = await client.list();
      assert.deepEqual(
        listed?.map((organization) => organization.id),
        [a.id],
      );

      const stored = await api.orm.em.fork().findOneOrFail(Organization, b.id);
      assert.equal(stored.name, 'Acme');
      assert.equal(stored.metadata, '{"secret":"b"}');
      assert.equal(await ownerOfB.activeOrganizationId(), b.id);
    });
  });
});

describe('organization limits', () => {
  it('refuses a user at TOLLGATE_ORGANIZATION_LIMIT, counting memberships', async () => {
    const api = await startApi({ TOLLGATE_ORGANIZATION_LIMIT: '2' });
    try {
      const f = fixtures(api);
      assert.equal(f.settings.organizations.organizationLimit, 2);
      const user = await f.signedInUser('Limited');
      const other = await f.organizationOf(await f.signedInUser('Other'));
      await f.organizationOf(user);
      await f.join(user, other.id, 'member');
      refusedWith(
        await user.client.organization.create({ name: 'Third', slug: uniqueSlug() }),
        403,
        'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS',
      );
      assert.equal(await api.orm.em.fork().count(Member, { user: user.id }), 2);
    } finally {
      await api.close();
    }
  });

  it('asks an organizationLimit hook for the user’s limit', async () => {
    const api = await startApi();
    try {
      const f = fixtures(api);
      const user = await f.signedInUser('Hooked');
      const creator = await api.orm.em.fork().findOneOrFail(User, user.id);
      const asked: string[] = [];
      const limits = {
        membershipLimit: 100,
        organizationLimit: async (userId: string) => {
          asked.push(userId);
          return 1;
        },
      };
      await createOrganization(api.orm.em.fork(), limits, creator, {
        name: 'One',
        slug: uniqueSlug(),
      });
      await assert.rejects(
        createOrganization(api.orm.em.fork(), limits, creator, { name: 'Two', slug: uniqueSlug() }),
        { message: organizationMessages.YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS },
      );
      assert.deepEqual(asked, [user.id, user.id]);
    } finally {
      await api.close();
    }
  });

  it('reads the limits from the environment, refusing bad values', () => {
    const defaults = loadRuntimeConfig({ ...process.env });
    assert.equal(defaults.auth.organizationLimit, undefined);
    assert.equal(defaults.auth.membershipLimit, 100);
    for (const variable of ['TOLLGATE_ORGANIZATION_LIMIT', 'TOLLGATE_MEMBERSHIP_LIMIT']) {
      assert.throws(() => loadRuntimeConfig({ ...process.env, [variable]: '0' }), {
        message: new RegExp(`^${variable} must be a whole number`),
      });
    }
  });
});
