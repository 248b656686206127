import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { User } from '../../db/entities/index.ts';
import { startTestApi } from '../testing.ts';
import { authOperations } from './operations.ts';
import { authRouteTable, browserAuthClient } from './testing.ts';

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');

const routeOf = (operation: (typeof authOperations)[number]) =>
  `${operation.method.toUpperCase()} ${operation.path}`;

/** The operation documenting `method` on `path`: Koa's `:name` matches one path segment. */
function operationFor(method: string, path: string) {
  return authOperations.find(
    (operation) =>
      operation.method === method.toLowerCase() &&
      new RegExp(`^${operation.path.replace(/:\w+/g, '[^/]+')}$`).test(path),
  );
}

/** One answer the client got, checked against its operation once the body is read. */
interface Exchange {
  route: string;
  operationId: string | undefined;
  problem: Promise<string | null>;
}

/** What is wrong with `response` as an answer of the operation documenting it, or null. */
async function problemOf(method: string, url: URL, response: Response): Promise<string | null> {
  const operation = operationFor(method, url.pathname);
  if (!operation) return 'no operation documents it';
  const { status, schema } = operation.response;
  if (response.status !== status) {
    return `answered ${response.status} (${await response.text()}), documented ${status}`;
  }
  if (!schema) return null;
  const text = await response.text();
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? null : `${text}\n${JSON.stringify(parsed.error.issues)}`;
  } catch {
    return `answered ${text}, not JSON`;
  }
}

/** The exchanges whose answer differs from its documentation, with what differs. */
async function problemsOf(exchanges: Exchange[]) {
  const problems = await Promise.all(
    exchanges.map(async ({ route, problem }) => [route, await problem] as const),
  );
  return problems.filter(([, problem]) => problem !== null);
}

describe('the /api/auth OpenAPI operations', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let origin: string;
  /** A Better Auth client whose every answer goes to `exchanges`, checked against its operation. */
  const checkedBrowser = (exchanges: Exchange[]) =>
    browserAuthClient(api.url, origin, (method, url, response) => {
      exchanges.push({
        route: `${method} ${url.pathname}`,
        operationId: operationFor(method, url.pathname)?.operationId,
        problem: problemOf(method, url, response.clone()),
      });
    });

  before(async () => {
    api = await startTestApi();
    origin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  it('documents every route the auth routers register, and no other', () => {
    const registered = [...new Set(authRouteTable(api))].sort();
    const documented = authOperations.map(routeOf).sort();
    assert.deepEqual(documented, [...new Set(documented)], 'a route is documented twice');
    assert.deepEqual(documented, registered);
  });

  it('answers the Better Auth client as documented', async () => {
    const exchanges: Exchange[] = [];
    const { client } = checkedBrowser(exchanges);
    const email = `openapi-${uniqueTag()}@example.com`;
    assert.equal((await client.getSession()).data, null);
    const signUp = await client.signUp.email({ email, password, name: 'Ada' });
    assert.equal(signUp.error, null);
    assert.equal((await client.signIn.email({ email, password })).error, null);
    assert.equal((await client.getSession()).data?.user.email, email);
    assert.equal((await client.listSessions()).error, null);
    assert.equal((await client.updateUser({ name: 'Ada Lovelace' })).error, null);
    assert.equal((await client.listAccounts()).error, null);

    const slug = `openapi-${uniqueTag()}`;
    const created = await client.organization.create({ name: 'Documented', slug });
    assert.equal(created.error, null);
    const organizationId = created.data?.id ?? '';
    const invited = await client.organization.inviteMember({
      email: `invitee-${uniqueTag()}@example.com`,
      role: 'member',
      organizationId,
    });
    assert.equal(invited.error, null);
    assert.equal((await client.organization.list()).data?.[0]?.slug, slug);
    const reads = [
      client.organization.listInvitations({ query: { organizationId } }),
      client.organization.getFullOrganization({ query: { organizationId } }),
      client.organization.listMembers({ query: { organizationId } }),
      client.organization.getActiveMember(),
      client.organization.getActiveMemberRole(),
      client.organization.listTeams(),
      client.organization.listUserTeams(),
      client.organization.listUserInvitations(),
      client.organization.hasPermission({ permissions: { invitation: ['create'] } }),
    ];
    for (const { error } of await Promise.all(reads)) assert.equal(error, null);

    const key = await client.apiKey.create({ name: 'documented' });
    assert.equal(key.error, null);
    assert.equal((await client.apiKey.list()).data?.length, 1);
    assert.equal((await client.apiKey.get({ query: { id: key.data?.id ?? '' } })).error, null);

    const userId = signUp.data?.user.id ?? '';
    await api.orm.em.fork().nativeUpdate(User, { id: userId }, { role: 'admin' });
    const users = await client.admin.listUsers({ query: { searchValue: email } });
    assert.equal(users.error, null);
    assert.equal((await client.admin.getUser({ query: { id: userId } })).error, null);
    assert.equal((await client.admin.listUserSessions({ userId })).error, null);
    const adminCheck = await client.admin.hasPermission({ permissions: { user: ['list'] } });
    assert.equal(adminCheck.data?.success, true);
    assert.equal((await client.signOut()).error, null);

    assert.deepEqual(await problemsOf(exchanges), []);
    const exercised = new Set(exchanges.map(({ operationId }) => operationId));
    for (const operationId of [
      'signUp:email',
      'signIn:email',
      'getSession',
      'organization:create',
      'organization:inviteMember',
      'organization:list',
      'apiKey:create',
      'apiKey:list',
      'admin:listUsers',
    ]) {
      assert.ok(exercised.has(operationId), `${operationId} was not called`);
    }
  });

  it('answers the rest of the account, team, role, key and admin calls as documented', async () => {
    const exchanges: Exchange[] = [];
    const { client, fetch: browserFetch } = checkedBrowser(exchanges);
    /** A call the client has no method for (dynamic roles, key verification, pages). */
    const call = (path: string, body?: object) =>
      browserFetch(`${api.url}/api/auth${path}`, {
        method: body ? 'POST' : 'GET',
        ...(body && {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      });
    const email = `openapi-${uniqueTag()}@example.com`;
    const signUp = await client.signUp.email({ email, password, name: 'Grace' });
    const userId = signUp.data?.user.id ?? '';
    await call('/ok');
    await call('/error?error=SOMETHING');

    const slug = `openapi-${uniqueTag()}`;
    const organizationId = (await client.organization.create({ name: 'Teams', slug })).data?.id;
    assert.ok(organizationId);
    await client.organization.checkSlug({ slug: `${slug}-free` });
    await client.organization.update({ data: { name: 'Teams renamed' }, organizationId });
    await client.organization.setActive({ organizationId });
    const teamId = (await client.organization.createTeam({ name: 'Ops' })).data?.id ?? '';
    await client.organization.updateTeam({ teamId, data: { name: 'Operations' } });
    await client.organization.addTeamMember({ teamId, userId });
    await client.organization.listTeamMembers({ query: { teamId } });
    await client.organization.setActiveTeam({ teamId });
    await client.organization.setActiveTeam({ teamId: null });
    await client.organization.removeTeamMember({ teamId, userId });
    await client.organization.removeTeam({ teamId });
    const invited = await client.organization.inviteMember({
      email: `invitee-${uniqueTag()}@example.com`,
      role: 'member',
    });
    await client.organization.cancelInvitation({ invitationId: invited.data?.id ?? '' });

    const permission = { invitation: ['create'] };
    await call('/organization/create-role', { role: 'auditor', permission });
    await call('/organization/list-roles');
    await call('/organization/get-role?roleName=auditor');
    await call('/organization/update-role', { roleName: 'auditor', data: { permission } });
    await call('/organization/delete-role', { roleName: 'auditor' });

    const key = (await client.apiKey.create({ name: 'to verify' })).data;
    await call('/api-key/verify', { key: key?.key });
    await call('/api-key/verify', { key: 'not a key' });
    await client.apiKey.update({ keyId: key?.id ?? '', name: 'renamed' });
    await client.apiKey.delete({ keyId: key?.id ?? '' });

    const newPassword = `${password} again`;
    await client.changePassword({ currentPassword: password, newPassword });
    await client.revokeOtherSessions();
    await client.requestPasswordReset({ email });
    await client.forgetPassword({ email });

    await api.orm.em.fork().nativeUpdate(User, { id: userId }, { role: 'admin' });
    const other = await client.admin.createUser({
      email: `created-${uniqueTag()}@example.com`,
      password,
      name: 'Created',
    });
    const otherId = other.data?.user.id ?? '';
    await client.admin.updateUser({ userId: otherId, data: { name: 'Updated' } });
    await client.admin.setRole({ userId: otherId, role: 'user' });
    await client.admin.setUserPassword({ userId: otherId, newPassword });
    await client.admin.banUser({ userId: otherId, banReason: 'testing' });
    await client.admin.unbanUser({ userId: otherId });
    await client.admin.impersonateUser({ userId: otherId });
    await client.admin.stopImpersonating();
    await client.admin.revokeUserSessions({ userId: otherId });
    await client.admin.removeUser({ userId: otherId });
    await client.organization.delete({ organizationId });
    await client.revokeSessions();

    assert.deepEqual(await problemsOf(exchanges), []);
    const calls = exchanges.map(({ route }) => route);
    assert.ok(calls.includes('POST /api/auth/admin/stop-impersonating'), calls.join('\n'));
  });

  it('serves them as an OpenAPI 3.1 document at /api/auth/openapi.json', async () => {
    const response = await fetch(`${api.url}/api/auth/openapi.json`);
    assert.equal(response.status, 200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; responses: object }>>;
    };
    assert.equal(document.openapi, '3.1.0');
    for (const operation of authOperations) {
      const path = operation.path.replace(/:(\w+)/g, '{$1}');
      const documented = document.paths[path]?.[operation.method];
      assert.equal(documented?.operationId, operation.operationId, routeOf(operation));
      assert.ok(String(operation.response.status) in documented.responses, routeOf(operation));
    }
    const operationCount = Object.values(document.paths).flatMap(Object.keys).length;
    assert.equal(operationCount, authOperations.length);
  });
});
