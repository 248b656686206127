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

describe('the /api/auth OpenAPI operations', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let origin: string;
  const exchanges: Exchange[] = [];

  /** A Better Auth client whose every answer is held against the documented operation. */
  const checkedBrowser = () =>
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
    const { client } = checkedBrowser();
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

    const problems = await Promise.all(
      exchanges.map(async ({ route, problem }) => [route, await problem] as const),
    );
    assert.deepEqual(
      problems.filter(([, problem]) => problem !== null),
      [],
    );
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
