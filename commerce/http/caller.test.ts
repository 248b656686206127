import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import Koa from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { errorResponses } from '../../api/middleware/errors.ts';
import { announceChange } from '../../db/change-notifications.ts';
import { Organization, OrganizationAccessToken } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import {
  dashboardOrigin,
  type SignedInPerson,
  signedInOwner,
  signedInPerson,
} from '../access-tokens/testing.ts';
import { callV1, createSeller, startCommerceApi, type TestApi } from '../testing.ts';
import { callerOf, identifyCaller, scope } from './caller.ts';

/** A rejection of the SDK with `status` whose body names `error` (generic SDKError statuses). */
const refusedWith = (status: number, error: string) => (thrown: unknown) =>
  thrown instanceof SDKError &&
  thrown.statusCode === status &&
  JSON.parse(thrown.body).error === error;

const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

describe('/v1 callers', () => {
  let api: TestApi;
  let owner: SignedInPerson & { organizationId: string };

  before(async () => {
    api = await startCommerceApi();
    owner = await signedInOwner(api);
  });
  after(() => api.close());

  describe('organization access tokens', () => {
    it('act within their scopes, a write scope granting the read of its resource', async () => {
      const reader = await createSeller(api, { scopes: ['organizations:read'] });
      const organization = await reader.polar.organizations.get({ id: reader.organizationId });
      assert.equal(organization.id, reader.organizationId);
      // Raw: the SDK types this route's 403 as NotPermitted and cannot parse Polar's OAuth2 answer.
      const path = `/v1/organizations/${reader.organizationId}`;
      const refused = await callV1(api, reader.token, 'PATCH', path, {
        name: 'Renamed by a reader',
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'insufficient_scope');
      const stored = await api.orm.em.fork().findOneOrFail(Organization, reader.organizationId);
      assert.notEqual(stored.name, 'Renamed by a reader');

      const writer = await createSeller(api, { scopes: ['organizations:write'] });
      const read = await writer.polar.organizations.get({ id: writer.organizationId });
      assert.equal(read.id, writer.organizationId);
      const renamed = await writer.polar.organizations.update({
        id: writer.organizationId,
        organizationUpdate: { name: 'Renamed by a writer' },
      });
      assert.equal(renamed.name, 'Renamed by a writer');

      const unrelated = await createSeller(api, { scopes: ['products:write'] });
      await assert.rejects(
        unrelated.polar.organizations.get({ id: unrelated.organizationId }),
        refusedWith(403, 'insufficient_scope'),
      );
    });

    it('record their last use at most once a minute', async () => {
      const seller = await createSeller(api, { scopes: ['organizations:read'] });
      const lastUsedAt = async () => {
        const token = await api.orm.em
          .fork()
          .findOneOrFail(OrganizationAccessToken, { tokenHash: hashToken(seller.token) });
        return token.lastUsedAt;
      };
      assert.equal(await lastUsedAt(), null);

      await seller.polar.organizations.get({ id: seller.organizationId });
      const firstUse = await lastUsedAt();
      assert.ok(firstUse instanceof Date);
      await seller.polar.organizations.get({ id: seller.organizationId });
      assert.deepEqual(await lastUsedAt(), firstUse);

      const twoMinutesAgo = new Date(Date.now() - 120_000);
      await api.orm.em
        .fork()
        .nativeUpdate(
          OrganizationAccessToken,
          { tokenHash: hashToken(seller.token) },
          { lastUsedAt: twoMinutesAgo },
        );
      // A change made behind the API's back must be announced, as its services do.
      await announceChange(api.orm.em.fork(), 'accessToken', hashToken(seller.token));
      await seller.polar.organizations.get({ id: seller.organizationId });
      const laterUse = await lastUsedAt();
      assert.ok(laterUse && laterUse > twoMinutesAgo);
    });

    it('are hashed before lookup: the stored hash itself is not a credential', async () => {
      const seller = await createSeller(api);
      const path = `/v1/organizations/${seller.organizationId}`;
      const hashed = await callV1(api, hashToken(seller.token), 'GET', path);
      assert.equal(hashed.status, 401);
      assert.equal(hashed.body.error, 'invalid_token');
    });
  });

  describe('dashboard sessions', () => {
    const cookieCall = (
      person: SignedInPerson,
      method: string,
      path: string,
      headers: Record<string, string>,
      body?: unknown,
    ) =>
      fetch(`${api.url}${path}`, {
        method,
        headers: {
          cookie: person.cookies.header(),
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    it('act for the active organization of an owner', async () => {
      const { status, body } = await owner.call('GET', '/v1/organizations/');
      assert.equal(status, 200);
      assert.deepEqual(
        body.items.map((organization: { id: string }) => organization.id),
        [owner.organizationId],
      );
    });

    it('are anonymous without an active organization: protected routes answer 401', async () => {
      const person = await signedInPerson(api);
      const { status, body } = await person.call('GET', '/v1/organizations/');
      assert.equal(status, 401);
      assert.deepEqual(body, { error: 'Unauthorized', detail: 'Unauthorized' });
    });

    it('change nothing from an untrusted origin, nor without any origin', async () => {
      const path = `/v1/organizations/${owner.organizationId}`;
      const forgeries: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { referer: 'https://evil.example/page' },
        {},
      ];
      for (const headers of forgeries) {
        const response = await cookieCall(owner, 'PATCH', path, headers, { name: 'Forged' });
        assert.equal(response.status, 403, JSON.stringify(headers));
        assert.equal(await errorOf(response), 'NotPermitted');
      }
      const stored = await api.orm.em.fork().findOneOrFail(Organization, owner.organizationId);
      assert.notEqual(stored.name, 'Forged');

      // Reading needs no origin (the browser keeps the answer from other sites), and the
      // dashboard's own pages may send only a Referer.
      const read = await cookieCall(owner, 'GET', path, { origin: 'https://evil.example' });
      assert.equal(read.status, 200);
      const referred = await cookieCall(
        owner,
        'PATCH',
        path,
        { referer: `${dashboardOrigin(api)}/settings` },
        { name: 'Renamed from the dashboard' },
      );
      assert.equal(referred.status, 200);
    });

    it('never stand in for a bearer value that is not a live organization token', async () => {
      const path = `/v1/organizations/${owner.organizationId}`;
      const sessionToken = owner.cookies.get('better-auth.session_token') ?? '';
      for (const authorization of [
        'Bearer polar_oat_unknown',
        'Bearer polar_cst_customer-session',
        `Bearer ${decodeURIComponent(sessionToken)}`,
        'Basic dXNlcjpwYXNz',
        'Bearer',
      ]) {
        const response = await cookieCall(owner, 'GET', path, {
          authorization,
          origin: dashboardOrigin(api),
        });
        assert.equal(response.status, 401, authorization);
        assert.equal(await errorOf(response), 'invalid_token', authorization);
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
      }
    });
  });

  describe('identification', () => {
    // An application with one public and one protected route, whose database only counts reads.
    let url: string;
    let close: () => void;
    const reads: string[] = [];

    before(async () => {
      const em = new Proxy(
        {},
        {
          get: (_target, method) => async () => {
            reads.push(String(method));
            return null;
          },
        },
      );
      const dependencies = { ...api, orm: { em } } as unknown as AppDependencies;
      const router = new Router();
      router.use(identifyCaller(dependencies));
      router.post('/v1/public', (ctx) => {
        ctx.body = { public: true };
      });
      router.get('/v1/protected', scope('products:read'), (ctx) => {
        ctx.body = { organization_id: callerOf(ctx).organizationId };
      });
      const app = new Koa();
      app.use(errorResponses(api.logger));
      app.use(router.routes());
      const server = createServer(app.callback()).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => server.close();
    });
    after(() => close());

    it('reads nothing for a route that needs no caller, whatever credentials come', async () => {
      reads.length = 0;
      const response = await fetch(`${url}/v1/public`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer polar_oat_anything',
          cookie: owner.cookies.header(),
          origin: 'https://evil.example',
        },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(reads, []);
    });

    it('looks the token up when the route asks for a caller', async () => {
      reads.length = 0;
      const response = await fetch(`${url}/v1/protected`, {
        headers: { authorization: 'Bearer polar_oat_anything' },
      });
      assert.equal(response.status, 401);
      assert.deepEqual(reads, ['findOne']);
    });

    it('refuses a value without the token prefix without reading anything', async () => {
      reads.length = 0;
      const response = await fetch(`${url}/v1/protected`, {
        headers: { authorization: 'Bearer not-an-organization-token' },
      });
      assert.equal(response.status, 401);
      assert.equal(await errorOf(response), 'invalid_token');
      assert.deepEqual(reads, []);
    });
  });
});
