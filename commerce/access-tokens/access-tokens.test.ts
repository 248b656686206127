import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import pg from 'pg';
import { announceChange } from '../../db/change-notifications.ts';
import { Member, OrganizationAccessToken, Session, User } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { allScopes } from '../../domain/scopes.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { callV1, polarClient, startCommerceApi, type TestApi } from '../testing.ts';
import { defaultLifetimeSeconds } from './schemas.ts';
import { createAccessToken } from './service.ts';
import { type SignedInPerson, signedInMember, signedInOwner, signedInPerson } from './testing.ts';

const tokensPath = '/v1/organization-access-tokens/';

const wireKeys = [
  'comment',
  'created_at',
  'expires_at',
  'id',
  'last_used_at',
  'modified_at',
  'organization_id',
  'scopes',
];

/** The SDK's rejection of a token that is revoked, expired or unknown. */
const invalidToken = (thrown: unknown) =>
  thrown instanceof SDKError && thrown.statusCode === 401 && /invalid_token/.test(thrown.body);

describe('organization access tokens (/v1/organization-access-tokens)', () => {
  let api: TestApi;
  let owner: Awaited<ReturnType<typeof signedInOwner>>;

  const countTokens = (organizationId: string) =>
    api.orm.em.fork().count(OrganizationAccessToken, { organization: organizationId });

  before(async () => {
    api = await startCommerceApi();
    owner = await signedInOwner(api);
  });
  after(() => api.close());

  it('are created from the dashboard, shown once, stored hashed and drive the SDK', async () => {
    const requestedAt = Date.now();
    const created = await owner.call('POST', tokensPath, {
      comment: 'Deploy pipeline',
      scopes: ['organizations:read', 'products:write'],
      expires_in: 3600,
    });
    assert.equal(created.status, 201);
    const { organization_access_token: accessToken, token } = created.body;
    assert.match(token, /^polar_oat_[\w-]{43}$/);
    assert.deepEqual(Object.keys(accessToken).sort(), wireKeys);
    assert.equal(accessToken.organization_id, owner.organizationId);
    assert.equal(accessToken.comment, 'Deploy pipeline');
    assert.deepEqual(accessToken.scopes, ['organizations:read', 'products:write']);
    assert.equal(accessToken.last_used_at, null);
    const expiresAt = Date.parse(accessToken.expires_at);
    assert.ok(expiresAt >= requestedAt + 3600_000 && expiresAt <= Date.now() + 3600_000);

    // The table keeps the hash alone: no column of the row holds the token or its secret part.
    const rows = await api.orm.em
      .fork()
      .getConnection()
      .execute('select * from organization_access_tokens where id = ?', [accessToken.id]);
    const [row] = rows;
    assert.equal(rows.length, 1);
    assert.equal(row?.token_hash, hashToken(token));
    assert.ok(!JSON.stringify(row).includes(token.slice('polar_oat_'.length)));

    const polar = polarClient(api.url, token);
    const organization = await polar.organizations.get({ id: owner.organizationId });
    assert.equal(organization.id, owner.organizationId);
  });

  it('are listed without their secrets, with their last use', async () => {
    const { body: used } = await owner.call('POST', tokensPath, {
      comment: 'Used',
      scopes: ['organizations:read'],
    });
    await polarClient(api.url, used.token).organizations.list({});
    const { body: unused } = await owner.call('POST', tokensPath, {
      comment: 'Unused',
      scopes: ['organizations:read'],
    });

    const listed = await owner.call('GET', tokensPath);
    assert.equal(listed.status, 200);
    const listedOf = (created: { organization_access_token: { id: string } }) =>
      listed.body.items.find(
        (item: { id: string }) => item.id === created.organization_access_token.id,
      );
    assert.ok(Date.parse(listedOf(used).last_used_at) >= Date.parse(listedOf(used).created_at));
    assert.equal(listedOf(unused).last_used_at, null);
    assert.equal(listed.body.pagination.total_count, await countTokens(owner.organizationId));
    for (const item of listed.body.items) assert.deepEqual(Object.keys(item).sort(), wireKeys);
    const wire = JSON.stringify(listed.body);
    assert.ok(!wire.includes(used.token) && !wire.includes(unused.token));
    assert.ok(!wire.includes(hashToken(used.token)));
  });

  it('change comment and scopes, which the token then has at once', async () => {
    const { body } = await owner.call('POST', tokensPath, {
      comment: 'Reader',
      scopes: ['organizations:read'],
    });
    const id = body.organization_access_token.id;
    const organizationPath = `/v1/organizations/${owner.organizationId}`;
    const before = await callV1(api, body.token, 'PATCH', organizationPath, { name: 'Acme Inc' });
    assert.equal(before.status, 403);
    assert.equal(before.body.error, 'insufficient_scope');

    const updated = await owner.call('PATCH', `${tokensPath}${id}`, {
      comment: 'Writer',
      scopes: ['organizations:write', 'organizations:write'],
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.comment, 'Writer');
    assert.deepEqual(updated.body.scopes, ['organizations:write']);
    assert.ok(Date.parse(updated.body.modified_at) >= Date.parse(updated.body.created_at));

    const polar = polarClient(api.url, body.token);
    const renamed = await polar.organizations.update({
      id: owner.organizationId,
      organizationUpdate: { name: 'Acme Inc' },
    });
    assert.equal(renamed.name, 'Acme Inc');

    const commentOnly = await owner.call('PATCH', `${tokensPath}${id}`, { comment: 'Renamed' });
    assert.deepEqual(commentOnly.body.scopes, ['organizations:write']);
  });

  it('are revoked with 204, after which the token answers 401 invalid_token', async () => {
    const { body } = await owner.call('POST', tokensPath, {
      comment: 'Short-lived',
      scopes: ['organizations:read'],
    });
    const polar = polarClient(api.url, body.token);
    await polar.organizations.get({ id: owner.organizationId });

    const path = `${tokensPath}${body.organization_access_token.id}`;
    const revoked = await owner.call('DELETE', path);
    assert.equal(revoked.status, 204);
    assert.equal(revoked.body, null);
    await assert.rejects(polar.organizations.get({ id: owner.organizationId }), invalidToken);
    assert.equal((await owner.call('DELETE', path)).status, 404);
  });

  it('stop working once expired', async () => {
    const { body } = await owner.call('POST', tokensPath, {
      comment: 'Expiring',
      scopes: ['organizations:read'],
      expires_in: 60,
    });
    const polar = polarClient(api.url, body.token);
    await polar.organizations.get({ id: owner.organizationId });
    await api.orm.em
      .fork()
      .nativeUpdate(
        OrganizationAccessToken,
        { id: body.organization_access_token.id },
        { expiresAt: new Date(Date.now() - 1000) },
      );
    // A change made behind the API's back must be announced, as its services do.
    await announceChange(api.orm.em.fork(), 'accessToken', hashToken(body.token));
    await assert.rejects(polar.organizations.get({ id: owner.organizationId }), invalidToken);
  });

  it('expire after a year unless their creator asks otherwise, never only when asked', async () => {
    const requestedAt = Date.now();
    const unspecified = await owner.call('POST', tokensPath, {
      comment: 'No lifetime given',
      scopes: ['organizations:read'],
    });
    assert.equal(unspecified.status, 201);
    const expiresAt = Date.parse(unspecified.body.organization_access_token.expires_at);
    const year = defaultLifetimeSeconds * 1000;
    assert.equal(defaultLifetimeSeconds, 365 * 24 * 3600);
    assert.ok(expiresAt >= requestedAt + year && expiresAt <= Date.now() + year);

    const forever = await owner.call('POST', tokensPath, {
      comment: 'Never expires, as chosen',
      scopes: ['organizations:read'],
      expires_in: null,
    });
    assert.equal(forever.status, 201);
    assert.equal(forever.body.organization_access_token.expires_at, null);
  });

  it('refuse unknown scopes, another organization and bad values with 422, writing nothing', async () => {
    const other = await signedInOwner(api);
    const before = await countTokens(owner.organizationId);
    const cases: [body: Record<string, unknown>, loc: (string | number)[]][] = [
      [{ comment: 'x', scopes: ['organizations:read', 'root:write'] }, ['body', 'scopes', 1]],
      [{ comment: 'x', scopes: [] }, ['body', 'scopes']],
      [{ comment: ' ', scopes: ['organizations:read'] }, ['body', 'comment']],
      [{ comment: 'x', scopes: ['organizations:read'], expires_in: 10 }, ['body', 'expires_in']],
      [{ comment: 'x', scopes: ['organizations:read'], expires_in: 1e12 }, ['body', 'expires_in']],
      [
        { comment: 'x', scopes: ['organizations:read'], organization_id: other.organizationId },
        ['body', 'organization_id'],
      ],
    ];
    for (const [body, loc] of cases) {
      const refused = await owner.call('POST', tokensPath, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, loc, JSON.stringify(body));
    }
    assert.equal(await countTokens(owner.organizationId), before);
    assert.equal(await countTokens(other.organizationId), 0);

    const own = await owner.call('POST', tokensPath, {
      comment: 'Named',
      scopes: ['organizations:read'],
      organization_id: owner.organizationId,
    });
    assert.equal(own.status, 201);
  });

  it('are managed from a fresh session only: an owner signed in long ago signs in again', async () => {
    const staleOwner = await signedInOwner(api);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await api.orm.em
      .fork()
      .nativeUpdate(
        Session,
        { user: staleOwner.userId },
        { createdAt: twoDaysAgo, updatedAt: twoDaysAgo },
      );
    const refused = await staleOwner.call('POST', tokensPath, {
      comment: 'Late',
      scopes: ['organizations:read'],
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'NotPermitted');
    assert.equal(await countTokens(staleOwner.organizationId), 0);
    // Reading the organization needs no fresh session.
    const organizationPath = `/v1/organizations/${staleOwner.organizationId}`;
    assert.equal((await staleOwner.call('GET', organizationPath)).status, 200);
  });

  it('are managed by owners and admins only, never by a token', async () => {
    const member = await signedInMember(api, owner.organizationId, 'member');
    const before = await countTokens(owner.organizationId);
    const asMember = await member.call('POST', tokensPath, {
      comment: 'Mine',
      scopes: ['organizations:read'],
    });
    assert.equal(asMember.status, 403);
    assert.equal(asMember.body.error, 'insufficient_scope');

    // A member still reads the organization through their session, but cannot change it.
    const organizationPath = `/v1/organizations/${owner.organizationId}`;
    assert.equal((await member.call('GET', organizationPath)).status, 200);
    const update = await member.call('PATCH', organizationPath, { name: 'Members rule' });
    assert.equal(update.status, 403);
    assert.equal(update.body.error, 'insufficient_scope');

    const { body: full } = await owner.call('POST', tokensPath, {
      comment: 'Everything',
      scopes: ['organization_access_tokens:write', 'organizations:write'],
    });
    const byToken = await callV1(api, full.token, 'POST', tokensPath, {
      comment: 'Spawned',
      scopes: ['organizations:write'],
    });
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.error, 'NotPermitted');
    assert.equal((await callV1(api, full.token, 'GET', tokensPath)).status, 403);
    const path = `${tokensPath}${full.organization_access_token.id}`;
    assert.equal((await callV1(api, full.token, 'DELETE', path)).status, 403);
    assert.equal(await countTokens(owner.organizationId), before + 1);

    const admin = await signedInMember(api, owner.organizationId, 'admin');
    const asAdmin = await admin.call('POST', tokensPath, {
      comment: 'Admin token',
      scopes: ['organizations:read'],
    });
    assert.equal(asAdmin.status, 201);
  });

  it('are listed to every member, without secrets; a member still changes none of them', async () => {
    const seller = await signedInOwner(api);
    const { body: created } = await seller.call('POST', tokensPath, {
      comment: 'CI',
      scopes: ['products:read'],
    });
    const id = created.organization_access_token.id;
    const member = await signedInMember(api, seller.organizationId, 'member');
    // A member signed in long ago still reads the list: only managing tokens takes a fresh session.
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await api.orm.em
      .fork()
      .nativeUpdate(
        Session,
        { user: member.userId },
        { createdAt: twoDaysAgo, updatedAt: twoDaysAgo },
      );
    const listed = await member.call('GET', tokensPath);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.items.map((item: { id: string; comment: string }) => [item.id, item.comment]),
      [[id, 'CI']],
    );
    for (const item of listed.body.items) assert.deepEqual(Object.keys(item).sort(), wireKeys);
    const wire = JSON.stringify(listed.body);
    assert.ok(!wire.includes(created.token) && !wire.includes(hashToken(created.token)));

    const renamed = await member.call('PATCH', `${tokensPath}${id}`, { comment: 'Mine now' });
    assert.equal(renamed.status, 403);
    assert.equal((await member.call('DELETE', `${tokensPath}${id}`)).status, 403);
    const [stored] = (await seller.call('GET', tokensPath)).body.items;
    assert.equal(stored.comment, 'CI');
    // A token, even one allowed to read tokens, lists none: tokens are for people to see.
    const { body: reader } = await seller.call('POST', tokensPath, {
      comment: 'Reader',
      scopes: ['organization_access_tokens:read'],
    });
    const byToken = await callV1(api, reader.token, 'GET', tokensPath);
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.error, 'NotPermitted');
  });

  it("never list, change or revoke another organization's tokens", async () => {
    const other = await signedInOwner(api);
    const { body: theirs } = await other.call('POST', tokensPath, {
      comment: 'Theirs',
      scopes: ['organizations:read'],
    });
    const theirPath = `${tokensPath}${theirs.organization_access_token.id}`;

    const update = await owner.call('PATCH', theirPath, { comment: 'Hijacked' });
    assert.equal(update.status, 404);
    assert.equal(update.body.error, 'ResourceNotFound');
    assert.equal((await owner.call('DELETE', theirPath)).status, 404);
    assert.equal((await owner.call('PATCH', `${tokensPath}${randomUUID()}`, {})).status, 404);

    const filtered = await owner.call(
      'GET',
      `${tokensPath}?organization_id=${other.organizationId}`,
    );
    assert.deepEqual(filtered.body, { items: [], pagination: { total_count: 0, max_page: 0 } });
    const listed = await owner.call('GET', tokensPath);
    assert.ok(
      listed.body.items.every(
        (item: { id: string }) => item.id !== theirs.organization_access_token.id,
      ),
    );

    const organization = await polarClient(api.url, theirs.token).organizations.get({
      id: other.organizationId,
    });
    assert.equal(organization.id, other.organizationId);
    const [stored] = (await other.call('GET', tokensPath)).body.items;
    assert.equal(stored.comment, 'Theirs');
  });

  it('page by at most 100, sort by Polar criteria and refuse unknown ones', async () => {
    const seller = await signedInOwner(api);
    await api.orm.em.fork().insertMany(
      OrganizationAccessToken,
      Array.from({ length: 150 }, (_, index) => ({
        id: randomUUID(),
        organization: seller.organizationId,
        tokenHash: hashToken(randomUUID()),
        comment: `token ${String(index).padStart(3, '0')}`,
        scopes: ['organizations:read'],
        createdAt: new Date(),
      })),
    );
    const first = await seller.call('GET', `${tokensPath}?page=1&limit=500&sorting=comment`);
    assert.equal(first.status, 200);
    assert.equal(first.body.items.length, 100);
    assert.deepEqual(first.body.pagination, { total_count: 150, max_page: 2 });
    assert.equal(first.body.items[0].comment, 'token 000');
    const second = await seller.call('GET', `${tokensPath}?page=2&limit=500&sorting=-comment`);
    assert.equal(second.body.items.length, 50);
    assert.equal(second.body.items[0].comment, 'token 049');

    const unknown = await seller.call('GET', `${tokensPath}?sorting=token_hash`);
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.detail[0].loc, ['query', 'sorting']);
    assert.equal(unknown.body.detail[0].msg, 'Invalid sorting criterion.');
  });
});

describe("organization access tokens end with their creator's power", () => {
  let api: TestApi;
  let owner: Awaited<ReturnType<typeof signedInOwner>>;
  let platformAdmin: SignedInPerson;

  before(async () => {
    api = await startCommerceApi();
    owner = await signedInOwner(api);
    platformAdmin = await signedInPerson(api);
    await api.orm.em.fork().nativeUpdate(User, { id: platformAdmin.userId }, { role: 'admin' });
  });
  after(() => api.close());

  const tokenRow = (id: string) => api.orm.em.fork().findOne(OrganizationAccessToken, { id });

  /**
   * A token `creator` made from their session and used once (so this process holds it), with
   * what proves it dead: the SDK's 401 invalid_token and no row left.
   */
  async function usedToken(creator: { call: SignedInPerson['call'] }, organizationId: string) {
    const created = await creator.call('POST', tokensPath, {
      comment: 'Integration',
      scopes: ['organizations:read'],
    });
    assert.equal(created.status, 201);
    const polar = polarClient(api.url, created.body.token);
    assert.equal((await polar.organizations.get({ id: organizationId })).id, organizationId);
    const id: string = created.body.organization_access_token.id;
    return {
      works: async () => (await polar.organizations.get({ id: organizationId })).id,
      async isRevoked() {
        await assert.rejects(polar.organizations.get({ id: organizationId }), invalidToken);
        assert.equal(await tokenRow(id), null);
      },
    };
  }

  /** A token without a creator (seeded, as the demo and tests make them), used once. */
  async function seededToken(organizationId: string) {
    const { token } = await createAccessToken(api.orm.em.fork(), {
      organizationId,
      comment: 'Seeded',
      scopes: allScopes,
    });
    const polar = polarClient(api.url, token);
    await polar.organizations.get({ id: organizationId });
    return { works: async () => (await polar.organizations.get({ id: organizationId })).id };
  }

  it("an admin's token dies when the owner removes them; others' tokens live on", async () => {
    const admin = await signedInMember(api, owner.organizationId, 'admin');
    const adminToken = await usedToken(admin, owner.organizationId);
    const ownerToken = await usedToken(owner, owner.organizationId);
    const seeded = await seededToken(owner.organizationId);

    const { error } = await owner.client.organization.removeMember({
      memberIdOrEmail: admin.email,
      organizationId: owner.organizationId,
    });
    assert.equal(error, null);

    await adminToken.isRevoked();
    assert.equal(await ownerToken.works(), owner.organizationId);
    assert.equal(await seeded.works(), owner.organizationId);
  });

  it("an admin's token dies when they leave", async () => {
    const admin = await signedInMember(api, owner.organizationId, 'admin');
    const adminToken = await usedToken(admin, owner.organizationId);
    const { error } = await admin.client.organization.leave({
      organizationId: owner.organizationId,
    });
    assert.equal(error, null);
    await adminToken.isRevoked();
  });

  it('a demoted admin loses their tokens; an admin made owner keeps them', async () => {
    const demoted = await signedInMember(api, owner.organizationId, 'admin');
    const demotedToken = await usedToken(demoted, owner.organizationId);
    const promoted = await signedInMember(api, owner.organizationId, 'admin');
    const promotedToken = await usedToken(promoted, owner.organizationId);
    const memberIdOf = async (userId: string) => {
      const listed = await owner.client.organization.listMembers({
        query: { organizationId: owner.organizationId, limit: 100 },
      });
      const member = listed.data?.members.find((candidate) => candidate.userId === userId);
      assert.ok(member);
      return member.id;
    };

    const demotion = await owner.client.organization.updateMemberRole({
      memberId: await memberIdOf(demoted.userId),
      role: 'member',
      organizationId: owner.organizationId,
    });
    assert.equal(demotion.error, null);
    await demotedToken.isRevoked();
    // Demoted, they cannot mint another one either.
    const again = await demoted.call('POST', tokensPath, {
      comment: 'Again',
      scopes: ['organizations:read'],
    });
    assert.equal(again.status, 403);

    const promotion = await owner.client.organization.updateMemberRole({
      memberId: await memberIdOf(promoted.userId),
      role: ['admin', 'owner'],
      organizationId: owner.organizationId,
    });
    assert.equal(promotion.error, null);
    assert.equal(await promotedToken.works(), owner.organizationId);
  });

  it("a user's tokens die when a platform admin bans or removes them", async () => {
    const banned = await signedInMember(api, owner.organizationId, 'admin');
    const bannedToken = await usedToken(banned, owner.organizationId);
    const ban = await platformAdmin.client.admin.banUser({ userId: banned.userId });
    assert.equal(ban.error, null);
    await bannedToken.isRevoked();

    const removed = await signedInMember(api, owner.organizationId, 'admin');
    const removedToken = await usedToken(removed, owner.organizationId);
    const removal = await platformAdmin.client.admin.removeUser({ userId: removed.userId });
    assert.equal(removal.error, null);
    await removedToken.isRevoked();
  });

  it('a user who deletes their account takes their tokens with them', async () => {
    const leaving = await signedInMember(api, owner.organizationId, 'admin');
    const leavingToken = await usedToken(leaving, owner.organizationId);
    await leaving.client.deleteUser({});
    const mail = await waitForMail({ to: leaving.email, subject: /deleting your account/ });
    const token = new URL(extractLinks(mail)[0] ?? '').searchParams.get('token') ?? '';
    const { error } = await leaving.client.deleteUser({ token });
    assert.equal(error, null);
    await leavingToken.isRevoked();
  });

  it('every token of a deleted organization dies, seeded ones too', async () => {
    const doomed = await signedInOwner(api);
    const ownerToken = await usedToken(doomed, doomed.organizationId);
    const seeded = await seededToken(doomed.organizationId);
    const { error } = await doomed.client.organization.delete({
      organizationId: doomed.organizationId,
    });
    assert.equal(error, null);
    await ownerToken.isRevoked();
    await assert.rejects(seeded.works(), invalidToken);
  });

  it('a token being created while its creator is removed is refused, not left behind', async () => {
    const admin = await signedInMember(api, owner.organizationId, 'admin');
    const membership = await api.orm.em
      .fork()
      .findOneOrFail(Member, { organization: owner.organizationId, user: admin.userId });
    const removal = new pg.Client({ connectionString: api.config.database.url });
    await removal.connect();
    try {
      // The removal has locked the membership (as revokeTokensOfCreator does) when the create
      // arrives: the create waits for it, then finds no membership.
      await removal.query('begin');
      await removal.query('select 1 from members where id = $1 for update', [membership.id]);
      const creating = admin.call('POST', tokensPath, {
        comment: 'Slipped in',
        scopes: ['organizations:read'],
      });
      // Read outside the removal's transaction, which would keep seeing its first snapshot.
      const waitingCreations = async () => {
        const [row] = await api.orm.em.fork().execute(
          `select count(*) as waiting from pg_stat_activity where datname = current_database()
             and wait_event_type = 'Lock' and query like '%from members%for share%'`,
        );
        return Number(row?.waiting);
      };
      await eventually(waitingCreations, (waiting) => waiting > 0, {
        what: 'the creation waiting for the membership',
      });
      await removal.query('delete from members where id = $1', [membership.id]);
      await removal.query('commit');

      const refused = await creating;
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'NotPermitted');
      const left = await api.orm.em
        .fork()
        .count(OrganizationAccessToken, { createdBy: admin.userId });
      assert.equal(left, 0);
    } finally {
      await removal.end();
    }
  });
});
