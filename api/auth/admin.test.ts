import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hasAdminPermission } from '../../accounts/admin-permissions.ts';
import { authMessages } from '../../accounts/errors.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Account, Session, User } from '../../db/entities/index.ts';
import { roleGrants } from '../../domain/permissions.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient, CookieJar } from './testing.ts';

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');
const uniqueEmail = () => `admin-test-${uniqueTag()}@example.com`;
const adminSessionCookie = 'better-auth.admin_session';
const hour = 3_600_000;

// The client's types know only core fields here; with the admin plugin the wire carries more.
const adminFieldsOf = (user: unknown) =>
  user as { role: string; banned: boolean; banReason: string | null } | null | undefined;
const impersonatorOf = (session: unknown) =>
  (session as { impersonatedBy: string | null } | undefined)?.impersonatedBy;

describe('admin permissions (Better Auth defaults)', () => {
  const admin = { userId: 'a', role: 'admin' };
  const user = { userId: 'u', role: 'user' };
  const cases: [string, typeof admin, Record<string, string[]>, boolean][] = [
    ['admin bans', admin, { user: ['ban'] }, true],
    [
      'admin does several things at once',
      admin,
      { user: ['list', 'ban'], session: ['revoke'] },
      true,
    ],
    ['admin lists and revokes sessions', admin, { session: ['list', 'revoke', 'delete'] }, true],
    ['admin asks for an action that does not exist', admin, { user: ['fly'] }, false],
    ['admin asks for a resource that does not exist', admin, { billing: ['read'] }, false],
    ['one missing action refuses the whole request', admin, { user: ['ban', 'fly'] }, false],
    ['an empty request grants nothing', admin, {}, false],
    ['a resource with no actions passes, as in Better Auth', user, { user: [] }, true],
    ['user cannot list users', user, { user: ['list'] }, false],
    ['user cannot set roles', user, { user: ['set-role'] }, false],
    ['user cannot revoke sessions', user, { session: ['revoke'] }, false],
    [
      'any one of several roles grants',
      { userId: 'x', role: 'user,admin' },
      { user: ['ban'] },
      true,
    ],
    ['no role means the user role', { userId: 'x', role: '' }, { user: ['list'] }, false],
    ['an unknown role grants nothing', { userId: 'x', role: 'owner' }, { user: ['list'] }, false],
    ['roles are not trimmed', { userId: 'x', role: 'user, admin' }, { user: ['list'] }, false],
  ];
  for (const [name, subject, request, expected] of cases) {
    it(name, () => assert.equal(hasAdminPermission(subject, request, []), expected));
  }

  it('grants everything to the configured admin user ids, whatever their role', () => {
    assert.equal(hasAdminPermission(user, { user: ['delete'] }, ['u']), true);
    assert.equal(hasAdminPermission(user, { user: ['delete'] }, ['someone-else']), false);
  });

  it('checks a role’s own statements', () => {
    assert.equal(roleGrants({ user: ['get'] }, { user: ['get'] }), true);
    assert.equal(roleGrants({ user: ['get'] }, { session: ['list'] }), false);
  });
});

describe('admin API through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let origin: string;
  let admin: Awaited<ReturnType<typeof signedInUser>>;

  /** A new user signed in in their own browser. */
  async function signedInUser(name = 'Someone', email = uniqueEmail()) {
    const browser = browserAuthClient(api.url, origin);
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    return { ...browser, email, id: data?.user.id ?? '' };
  }

  async function signedInAdmin() {
    const someone = await signedInUser('Admin');
    await api.orm.em.fork().nativeUpdate(User, { id: someone.id }, { role: 'admin' });
    return someone;
  }

  const storedUser = (id: string) => api.orm.em.fork().findOne(User, { id });

  before(async () => {
    api = await startTestApi();
    origin = new URL(api.config.api.publicUrl).origin;
    admin = await signedInAdmin();
  });
  after(() => api.close());

  it('answers 401 with an empty body to every admin route without a session', async () => {
    const { client } = browserAuthClient(api.url, origin);
    const userId = admin.id;
    const calls = {
      createUser: () => client.admin.createUser({ email: uniqueEmail(), password, name: 'X' }),
      listUsers: () => client.admin.listUsers({ query: {} }),
      getUser: () => client.admin.getUser({ query: { id: userId } }),
      updateUser: () => client.admin.updateUser({ userId, data: { name: 'X' } }),
      setRole: () => client.admin.setRole({ userId, role: 'user' }),
      banUser: () => client.admin.banUser({ userId }),
      unbanUser: () => client.admin.unbanUser({ userId }),
      impersonateUser: () => client.admin.impersonateUser({ userId }),
      stopImpersonating: () => client.admin.stopImpersonating(),
      removeUser: () => client.admin.removeUser({ userId }),
      setUserPassword: () => client.admin.setUserPassword({ userId, newPassword: password }),
      listUserSessions: () => client.admin.listUserSessions({ userId }),
      revokeUserSession: () => client.admin.revokeUserSession({ sessionToken: 'x' }),
      revokeUserSessions: () => client.admin.revokeUserSessions({ userId }),
      hasPermission: () => client.admin.hasPermission({ permissions: { user: ['list'] } }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const { data, error } = await call();
      assert.equal(data, null, name);
      assert.equal(error?.status, 401, name);
      assert.equal((error as { code?: string } | null)?.code, undefined, name);
    }
    const raw = await fetch(`${api.url}/api/auth/admin/list-users`);
    assert.equal(raw.status, 401);
    assert.equal(await raw.text(), '');
    assert.equal((await storedUser(admin.id))?.role, 'admin');
  });

  it('refuses an ordinary user on every admin route with Better Auth’s 403', async () => {
    const ordinary = await signedInUser('Ordinary');
    const victim = await signedInUser('Victim');
    const { client } = ordinary;
    const userId = victim.id;
    const refusals: [string, () => Promise<{ error: unknown }>, string][] = [
      [
        'create-user',
        () => client.admin.createUser({ email: uniqueEmail(), password, name: 'X' }),
        'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS',
      ],
      [
        'list-users',
        () => client.admin.listUsers({ query: {} }),
        'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS',
      ],
      [
        'get-user',
        () => client.admin.getUser({ query: { id: userId } }),
        'YOU_ARE_NOT_ALLOWED_TO_GET_USER',
      ],
      [
        'update-user',
        () => client.admin.updateUser({ userId, data: { name: 'Hacked' } }),
        'YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS',
      ],
      [
        'set-role',
        () => client.admin.setRole({ userId, role: 'admin' }),
        'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE',
      ],
      ['ban-user', () => client.admin.banUser({ userId }), 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS'],
      ['unban-user', () => client.admin.unbanUser({ userId }), 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS'],
      [
        'impersonate-user',
        () => client.admin.impersonateUser({ userId }),
        'YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS',
      ],
      [
        'remove-user',
        () => client.admin.removeUser({ userId }),
        'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS',
      ],
      [
        'set-user-password',
        () => client.admin.setUserPassword({ userId, newPassword: 'owned by mallory' }),
        'YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD',
      ],
      [
        'list-user-sessions',
        () => client.admin.listUserSessions({ userId }),
        'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS',
      ],
      [
        'revoke-user-session',
        async () => {
          const { data } = await victim.client.getSession();
          return client.admin.revokeUserSession({ sessionToken: data?.session.token ?? '' });
        },
        'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
      ],
      [
        'revoke-user-sessions',
        () => client.admin.revokeUserSessions({ userId }),
        'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
      ],
    ];
    for (const [route, call, code] of refusals) {
      const { error } = (await call()) as { error: { status: number; code: string } | null };
      assert.equal(error?.status, 403, route);
      assert.equal(error?.code, code, route);
    }
    const { error } = await client.admin.stopImpersonating();
    assert.equal(error?.status, 400);
    assert.equal(error?.code, 'YOU_ARE_NOT_IMPERSONATING_ANYONE');

    // Nothing happened to the victim.
    const stored = await storedUser(victim.id);
    assert.equal(stored?.name, 'Victim');
    assert.equal(stored?.banned, false);
    assert.notEqual((await victim.client.getSession()).data, null);
    const signIn = await browserAuthClient(api.url, origin).client.signIn.email({
      email: victim.email,
      password,
    });
    assert.equal(signIn.error, null);
  });

  it('does not let an ordinary user make themselves admin', async () => {
    const ordinary = await signedInUser('Climber');
    const { error } = await ordinary.client.admin.setRole({ userId: ordinary.id, role: 'admin' });
    assert.equal(error?.status, 403);
    assert.equal(error?.code, 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE');
    assert.equal(error?.message, authMessages.YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE);
    const updated = await ordinary.fetch(`${api.url}/api/auth/admin/update-user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: ordinary.id, data: { role: 'admin' } }),
    });
    assert.equal(updated.status, 403);
    assert.equal((await storedUser(ordinary.id))?.role, 'user');
    const { data } = await ordinary.client.getSession();
    assert.equal(data?.user.role, 'user');
  });

  it('creates a user who can then sign in, with the role asked for', async () => {
    const email = uniqueEmail();
    const { data, error } = await admin.client.admin.createUser({
      email: email.toUpperCase(),
      password,
      name: 'Created',
      role: ['user', 'admin'],
      data: { emailVerified: true },
    });
    assert.equal(error, null);
    assert.equal(data?.user.email, email);
    assert.equal(data?.user.role, 'user,admin');
    assert.equal(data?.user.banned, false);
    assert.equal(data?.user.emailVerified, true);
    assert.ok(data?.user.createdAt instanceof Date);

    const created = browserAuthClient(api.url, origin);
    const signIn = await created.client.signIn.email({ email, password });
    assert.equal(signIn.error, null);
    const { data: session } = await created.client.getSession();
    assert.equal(session?.user.role, 'user,admin');
    // Any one of the roles grants: this user may list users.
    assert.equal((await created.client.admin.listUsers({ query: {} })).error, null);

    const plain = await admin.client.admin.createUser({
      email: uniqueEmail(),
      password,
      name: 'P',
    });
    assert.equal(plain.data?.user.role, 'user');
  });

  it('refuses a duplicate, a bad email or password, an unknown role and unknown fields', async () => {
    const post = (body: object) =>
      admin.fetch(`${api.url}/api/auth/admin/create-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password, name: 'Bad', ...body }),
      });
    const cases: [object, number, string][] = [
      [{ email: admin.email.toUpperCase() }, 400, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL'],
      [{ email: 'not-an-email' }, 400, 'INVALID_EMAIL'],
      [{ email: uniqueEmail(), password: 'short' }, 400, 'PASSWORD_TOO_SHORT'],
      [{ email: uniqueEmail(), password: 'x'.repeat(129) }, 400, 'PASSWORD_TOO_LONG'],
      [
        { email: uniqueEmail(), role: 'superuser' },
        400,
        'YOU_ARE_NOT_ALLOWED_TO_SET_A_NONEXISTENT_ROLE_VALUE',
      ],
      [{ email: uniqueEmail(), data: { banned: true } }, 400, 'VALIDATION_ERROR'],
      [{ email: 42 }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const response = await post(body);
      assert.equal(response.status, status, code);
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
    const duplicate = await admin.client.admin.createUser({
      email: admin.email,
      password,
      name: 'D',
    });
    assert.equal(duplicate.error?.message, 'User already exists. Use another email.');
    assert.equal(await api.orm.em.fork().count(User, { name: 'Bad' }), 0);
  });

  it('reads and updates one user', async () => {
    const someone = await signedInUser('Before');
    const { data: read } = await admin.client.admin.getUser({ query: { id: someone.id } });
    assert.equal(read?.email, someone.email);
    assert.equal(adminFieldsOf(read)?.role, 'user');
    assert.equal(adminFieldsOf(read)?.banned, false);
    assert.equal(adminFieldsOf(read)?.banReason, null);

    const { data: updated, error } = await admin.client.admin.updateUser({
      userId: someone.id,
      data: { name: 'After', emailVerified: true },
    });
    assert.equal(error, null);
    assert.equal(updated?.name, 'After');
    assert.equal(updated?.emailVerified, true);
    assert.equal((await someone.client.getSession()).data?.user.name, 'After');

    const nothing = await admin.client.admin.updateUser({ userId: someone.id, data: {} });
    assert.equal(nothing.error?.status, 400);
    assert.equal(nothing.error?.code, 'NO_DATA_TO_UPDATE');
    const taken = await admin.client.admin.updateUser({
      userId: someone.id,
      data: { email: admin.email },
    });
    assert.equal(taken.error?.code, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');

    for (const id of ['00000000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const missing = await admin.client.admin.getUser({ query: { id } });
      assert.equal(missing.error?.status, 404, id);
      assert.equal(missing.error?.code, 'USER_NOT_FOUND', id);
    }
  });

  it('sets roles, refusing roles that do not exist', async () => {
    const someone = await signedInUser('Promoted');
    assert.equal((await someone.client.admin.listUsers({ query: {} })).error?.status, 403);
    const { data } = await admin.client.admin.setRole({ userId: someone.id, role: 'admin' });
    assert.equal(data?.user.role, 'admin');
    assert.equal((await someone.client.admin.listUsers({ query: {} })).error, null);

    const several = await admin.client.admin.setRole({
      userId: someone.id,
      role: ['user', 'admin'],
    });
    assert.equal(several.data?.user.role, 'user,admin');

    const unknown = await admin.client.admin.setRole({
      userId: someone.id,
      role: 'owner' as 'admin',
    });
    assert.equal(unknown.error?.status, 400);
    assert.equal(unknown.error?.code, 'YOU_ARE_NOT_ALLOWED_TO_SET_A_NONEXISTENT_ROLE_VALUE');
    assert.equal((await storedUser(someone.id))?.role, 'user,admin');

    const demoted = await admin.client.admin.setRole({ userId: someone.id, role: 'user' });
    assert.equal(demoted.data?.user.role, 'user');
    assert.equal((await someone.client.admin.listUsers({ query: {} })).error?.status, 403);
  });

  it('lists users with search, filter, sort and paging', async () => {
    const tag = uniqueTag();
    const names = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
    const ids: string[] = [];
    for (const name of names) {
      const { data } = await admin.client.admin.createUser({
        email: `${name.toLowerCase()}-${tag}@list.example`,
        password,
        name: `${name} ${tag}`,
        role: name === 'Echo' ? 'admin' : 'user',
      });
      ids.push(data?.user.id ?? '');
    }

    const page = await admin.client.admin.listUsers({
      query: {
        searchValue: tag,
        searchField: 'name',
        sortBy: 'name',
        sortDirection: 'desc',
        limit: 2,
        offset: 1,
      },
    });
    assert.equal(page.error, null);
    assert.equal(page.data?.total, 5);
    const paging = page.data as { limit?: number; offset?: number } | null;
    assert.equal(paging?.limit, 2);
    assert.equal(paging?.offset, 1);
    assert.deepEqual(
      page.data?.users.map((user) => user.name),
      [`Delta ${tag}`, `Charlie ${tag}`],
    );

    const byEmail = await admin.client.admin.listUsers({
      query: { searchValue: `bravo-${tag}`, searchOperator: 'starts_with' },
    });
    assert.deepEqual(
      byEmail.data?.users.map((user) => user.id),
      [ids[1]],
    );
    assert.equal('limit' in (byEmail.data ?? {}), false, 'no limit asked, none answered');
    const endsWith = await admin.client.admin.listUsers({
      query: { searchValue: `${tag}@list.example`, searchOperator: 'ends_with' },
    });
    assert.equal(endsWith.data?.total, 5);
    // Search ignores case, and its wildcards are literal.
    const upper = await admin.client.admin.listUsers({
      query: { searchValue: `CHARLIE ${tag}`, searchField: 'name' },
    });
    assert.equal(upper.data?.total, 1);
    const wildcard = await admin.client.admin.listUsers({
      query: { searchValue: `%${tag}`, searchField: 'name' },
    });
    assert.equal(wildcard.data?.total, 0);

    const admins = await admin.client.admin.listUsers({
      query: { searchValue: tag, filterField: 'role', filterValue: 'admin' },
    });
    assert.deepEqual(
      admins.data?.users.map((user) => user.id),
      [ids[4]],
    );
    const notAdmins = await admin.client.admin.listUsers({
      query: { searchValue: tag, filterField: 'role', filterValue: 'admin', filterOperator: 'ne' },
    });
    assert.equal(notAdmins.data?.total, 4);

    await admin.client.admin.banUser({ userId: ids[2] ?? '' });
    const banned = await admin.client.admin.listUsers({
      query: { searchValue: tag, filterField: 'banned', filterValue: 'true' },
    });
    assert.deepEqual(
      banned.data?.users.map((user) => user.id),
      [ids[2]],
    );
    assert.equal(banned.data?.users[0]?.banReason, 'No reason');

    const unbounded = await admin.client.admin.listUsers({ query: {} });
    assert.ok((unbounded.data?.users.length ?? 0) <= 100);
    assert.ok((unbounded.data?.total ?? 0) >= 6);

    for (const query of [
      { sortBy: 'password' },
      { searchField: 'role', searchValue: 'x' },
      { filterField: 'banned', filterValue: 'maybe' },
      { filterField: 'createdAt', filterValue: 'yesterday' },
      { filterField: 'banned', filterValue: 'true', filterOperator: 'contains' },
      { limit: 'ten' },
    ]) {
      const { error } = await admin.client.admin.listUsers({ query: query as never });
      assert.equal(error?.status, 400, JSON.stringify(query));
      assert.equal(error?.code, 'VALIDATION_ERROR', JSON.stringify(query));
    }
  });

  it('bans a user: their sessions end and sign-in is refused until unbanned', async () => {
    const banned = await signedInUser('Banned');
    const otherDevice = browserAuthClient(api.url, origin);
    await otherDevice.client.signIn.email({ email: banned.email, password });

    const before = Date.now();
    const { data, error } = await admin.client.admin.banUser({
      userId: banned.id,
      banReason: 'Chargebacks',
      banExpiresIn: 3600,
    });
    assert.equal(error, null);
    assert.equal(data?.user.banned, true);
    assert.equal(data?.user.banReason, 'Chargebacks');
    const expires = data?.user.banExpires?.getTime() ?? 0;
    assert.ok(expires >= before + hour - 1000 && expires <= Date.now() + hour + 1000);

    assert.equal((await banned.client.getSession()).data, null);
    assert.equal((await otherDevice.client.getSession()).data, null);
    assert.equal(await api.orm.em.fork().count(Session, { user: banned.id }), 0);

    const signIn = await browserAuthClient(api.url, origin).client.signIn.email({
      email: banned.email,
      password,
    });
    assert.equal(signIn.error?.status, 403);
    assert.equal(signIn.error?.code, 'BANNED_USER');
    assert.equal(
      signIn.error?.message,
      'You have been banned from this application. Please contact support if you believe this is an error.',
    );
    // A wrong password still answers as before: the ban reveals nothing without the password.
    const wrong = await browserAuthClient(api.url, origin).client.signIn.email({
      email: banned.email,
      password: 'not the password',
    });
    assert.equal(wrong.error?.code, 'INVALID_EMAIL_OR_PASSWORD');

    const { data: unbanned } = await admin.client.admin.unbanUser({ userId: banned.id });
    assert.equal(unbanned?.user.banned, false);
    assert.equal(unbanned?.user.banReason, null);
    assert.equal(unbanned?.user.banExpires, null);
    const again = await browserAuthClient(api.url, origin).client.signIn.email({
      email: banned.email,
      password,
    });
    assert.equal(again.error, null);
  });

  it('lifts a ban whose time is up at the next sign-in', async () => {
    const someone = await signedInUser('Expired ban');
    await admin.client.admin.banUser({ userId: someone.id, banExpiresIn: 60 });
    await api.orm.em
      .fork()
      .nativeUpdate(User, { id: someone.id }, { banExpires: new Date(Date.now() - 1000) });
    const signIn = await browserAuthClient(api.url, origin).client.signIn.email({
      email: someone.email,
      password,
    });
    assert.equal(signIn.error, null);
    const stored = await storedUser(someone.id);
    assert.equal(stored?.banned, false);
    assert.equal(stored?.banExpires, null);
  });

  it('refuses to ban oneself or nobody', async () => {
    const self = await admin.client.admin.banUser({ userId: admin.id });
    assert.equal(self.error?.status, 400);
    assert.equal(self.error?.code, 'YOU_CANNOT_BAN_YOURSELF');
    assert.notEqual((await admin.client.getSession()).data, null);
    const nobody = await admin.client.admin.banUser({
      userId: '00000000-0000-7000-8000-000000000000',
    });
    assert.equal(nobody.error?.status, 404);
    assert.equal(nobody.error?.code, 'USER_NOT_FOUND');
    const negative = await admin.client.admin.banUser({ userId: admin.id, banExpiresIn: -5 });
    assert.equal(negative.error?.code, 'VALIDATION_ERROR');
  });

  it('impersonates a user and comes back to the admin’s own session', async () => {
    const target = await signedInUser('Target');
    const actingAdmin = await signedInAdmin();
    const { data: adminSession } = await actingAdmin.client.getSession();

    const started = Date.now();
    const { data, error } = await actingAdmin.client.admin.impersonateUser({ userId: target.id });
    assert.equal(error, null);
    assert.equal(data?.user.id, target.id);
    assert.equal(data?.session.userId, target.id);
    assert.equal(impersonatorOf(data?.session), actingAdmin.id);
    const lifetime = (data?.session.expiresAt.getTime() ?? 0) - started;
    assert.ok(lifetime > hour - 5000 && lifetime <= hour + 5000, `one hour, got ${lifetime} ms`);
    assert.ok(actingAdmin.cookies.get(adminSessionCookie), 'admin session kept aside');
    assert.ok(actingAdmin.cookies.get('better-auth.dont_remember'), 'a browser-session cookie');

    const { data: asTarget } = await actingAdmin.client.getSession();
    assert.equal(asTarget?.user.id, target.id);
    assert.equal(asTarget?.session.impersonatedBy, actingAdmin.id);
    // The target does not see the admin's session among their own...
    const { data: targetSessions } = await target.client.listSessions();
    assert.equal(targetSessions?.length, 1);
    assert.ok(targetSessions?.every((session) => impersonatorOf(session) === null));
    // ...but admins do.
    const { data: listed } = await admin.client.admin.listUserSessions({ userId: target.id });
    assert.equal(listed?.sessions.length, 2);
    assert.equal(
      listed?.sessions.filter((session) => session.impersonatedBy === actingAdmin.id).length,
      1,
    );
    // While impersonating, the admin has the target's rights, not their own.
    const refused = await actingAdmin.client.admin.listUsers({ query: {} });
    assert.equal(refused.error?.status, 403);

    const back = await actingAdmin.client.admin.stopImpersonating();
    assert.equal(back.error, null);
    assert.equal(back.data?.user.id, actingAdmin.id);
    assert.equal(back.data?.session.token, adminSession?.session.token);
    const { data: asAdmin } = await actingAdmin.client.getSession();
    assert.equal(asAdmin?.user.id, actingAdmin.id);
    assert.equal(actingAdmin.cookies.get(adminSessionCookie), undefined);
    assert.equal(actingAdmin.cookies.get('better-auth.dont_remember'), undefined);
    assert.equal(
      await api.orm.em.fork().count(Session, { user: target.id, impersonatedBy: actingAdmin.id }),
      0,
    );
    assert.notEqual((await target.client.getSession()).data, null);
  });

  it('refuses to impersonate a banned or unknown user, and to stop without the admin cookie', async () => {
    const banned = await signedInUser('Banned target');
    await admin.client.admin.banUser({ userId: banned.id });
    const refused = await admin.client.admin.impersonateUser({ userId: banned.id });
    assert.equal(refused.error?.status, 403);
    assert.equal(refused.error?.code, 'BANNED_USER');
    const unknown = await admin.client.admin.impersonateUser({ userId: 'nobody' });
    assert.equal(unknown.error?.status, 404);
    assert.equal(unknown.error?.code, 'USER_NOT_FOUND');

    // A browser holding only the impersonation session, not the admin's cookie.
    const target = await signedInUser('Target two');
    const actingAdmin = await signedInAdmin();
    await actingAdmin.client.admin.impersonateUser({ userId: target.id });
    const stray = new CookieJar();
    const sessionCookie = actingAdmin.cookies.get('better-auth.session_token') ?? '';
    stray.store(
      new Response(null, {
        headers: { 'set-cookie': `better-auth.session_token=${sessionCookie}` },
      }),
    );
    const response = await fetch(`${api.url}/api/auth/admin/stop-impersonating`, {
      method: 'POST',
      headers: { cookie: stray.header(), origin, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 500);
    assert.equal(
      ((await response.json()) as { code: string }).code,
      'FAILED_TO_FIND_ADMIN_SESSION',
    );
  });

  it('removes a user with their sessions and accounts, never oneself', async () => {
    const doomed = await signedInUser('Doomed');
    const { data } = await admin.client.admin.removeUser({ userId: doomed.id });
    assert.deepEqual(data, { success: true });
    const em = api.orm.em.fork();
    assert.equal(await em.count(User, { id: doomed.id }), 0);
    assert.equal(await em.count(Session, { user: doomed.id }), 0);
    assert.equal(await em.count(Account, { user: doomed.id }), 0);
    assert.equal((await doomed.client.getSession()).data, null);
    const signIn = await browserAuthClient(api.url, origin).client.signIn.email({
      email: doomed.email,
      password,
    });
    assert.equal(signIn.error?.code, 'INVALID_EMAIL_OR_PASSWORD');

    const again = await admin.client.admin.removeUser({ userId: doomed.id });
    assert.equal(again.error?.status, 404);
    assert.equal(again.error?.code, 'USER_NOT_FOUND');
    const self = await admin.client.admin.removeUser({ userId: admin.id });
    assert.equal(self.error?.status, 400);
    assert.equal(self.error?.code, 'YOU_CANNOT_REMOVE_YOURSELF');
    assert.equal(await em.count(User, { id: admin.id }), 1);
  });

  it('sets a user’s password', async () => {
    const someone = await signedInUser('New password');
    const newPassword = 'a brand new passphrase';
    const { data } = await admin.client.admin.setUserPassword({ userId: someone.id, newPassword });
    assert.deepEqual(data, { status: true });
    const signIn = (secret: string) =>
      browserAuthClient(api.url, origin).client.signIn.email({
        email: someone.email,
        password: secret,
      });
    assert.equal((await signIn(newPassword)).error, null);
    assert.equal((await signIn(password)).error?.code, 'INVALID_EMAIL_OR_PASSWORD');

    const short = await admin.client.admin.setUserPassword({
      userId: someone.id,
      newPassword: 'short',
    });
    assert.equal(short.error?.status, 400);
    assert.equal(short.error?.code, 'PASSWORD_TOO_SHORT');
    const stored = await api.orm.em
      .fork()
      .findOne(Account, { user: someone.id, providerId: 'credential' });
    assert.match(stored?.password ?? '', /^\$argon2id\$/);
  });

  it('lists and revokes another user’s sessions', async () => {
    const someone = await signedInUser('Two devices');
    const phone = browserAuthClient(api.url, origin);
    await phone.client.signIn.email({ email: someone.email, password });
    const { data: phoneSession } = await phone.client.getSession();

    const { data } = await admin.client.admin.listUserSessions({ userId: someone.id });
    assert.equal(data?.sessions.length, 2);
    assert.ok(data?.sessions.every((session) => session.userId === someone.id));
    // Tokens are kept only as hashes: the list shows no usable token.
    assert.ok(data?.sessions.every((session) => session.token !== phoneSession?.session.token));

    const phoneEntry = data?.sessions.find((session) => session.id === phoneSession?.session.id);
    const revoked = await admin.client.admin.revokeUserSession({
      sessionToken: phoneEntry?.token ?? '',
    });
    assert.deepEqual(revoked.data, { success: true });
    assert.equal((await phone.client.getSession()).data, null);
    assert.notEqual((await someone.client.getSession()).data, null);

    const all = await admin.client.admin.revokeUserSessions({ userId: someone.id });
    assert.deepEqual(all.data, { success: true });
    assert.equal((await someone.client.getSession()).data, null);
    const { data: none } = await admin.client.admin.listUserSessions({ userId: someone.id });
    assert.deepEqual(none?.sessions, []);
    assert.notEqual((await admin.client.getSession()).data, null, 'the admin is untouched');
  });

  it('answers whether the caller has a permission', async () => {
    const check = (client: typeof admin.client, permissions: Record<string, string[]>) =>
      client.admin.hasPermission({ permissions: permissions as never });
    assert.deepEqual((await check(admin.client, { user: ['ban'], session: ['revoke'] })).data, {
      error: null,
      success: true,
    });
    assert.equal((await check(admin.client, { user: ['fly'] })).data?.success, false);
    const ordinary = await signedInUser('Curious');
    assert.equal((await check(ordinary.client, { user: ['list'] })).data?.success, false);
    // The body's userId and role do not change whose permissions are checked.
    const spoofed = await ordinary.client.admin.hasPermission({
      userId: admin.id,
      role: 'admin',
      permissions: { user: ['list'] },
    });
    assert.equal(spoofed.data?.success, false);
    const both = await ordinary.fetch(`${api.url}/api/auth/admin/has-permission`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ permission: { user: ['list'] }, permissions: { user: ['list'] } }),
    });
    assert.equal(both.status, 400);
  });
});

describe('admins named by TOLLGATE_ADMIN_USER_IDS', () => {
  it('grants admin rights to the listed users whatever their role', async () => {
    const plainApi = await startTestApi();
    const origin = new URL(plainApi.config.api.publicUrl).origin;
    const founder = browserAuthClient(plainApi.url, origin);
    const email = uniqueEmail();
    const { data } = await founder.client.signUp.email({ email, password, name: 'Founder' });
    const founderId = data?.user.id ?? '';
    const refused = await founder.client.admin.listUsers({ query: {} });
    assert.equal(refused.error?.status, 403);
    await plainApi.close();

    const config = loadRuntimeConfig({ ...process.env, TOLLGATE_ADMIN_USER_IDS: ` ${founderId} ` });
    assert.deepEqual(config.auth.adminUserIds, [founderId]);
    const adminApi = await startApiServer(config, { host: '127.0.0.1', port: 0 });
    try {
      const browser = browserAuthClient(adminApi.url, origin);
      await browser.client.signIn.email({ email, password });
      const { data: listed, error } = await browser.client.admin.listUsers({ query: {} });
      assert.equal(error, null);
      assert.ok((listed?.total ?? 0) >= 1);
      const { data: session } = await browser.client.getSession();
      assert.equal(session?.user.role, 'user');
    } finally {
      await adminApi.close();
    }
  });

  it('refuses a malformed list at start-up, naming the variable', () => {
    assert.throws(
      () => loadRuntimeConfig({ ...process.env, TOLLGATE_ADMIN_USER_IDS: 'alice,bob' }),
      /TOLLGATE_ADMIN_USER_IDS must be a comma-separated list of user ids/,
    );
  });
});
