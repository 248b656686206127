import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createApiKey, type NewApiKey, type Permissions } from '../../accounts/api-keys.ts';
import { ApiKey, User } from '../../db/entities/index.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient } from './testing.ts';

const uniqueEmail = () => `keys-${randomBytes(6).toString('hex')}@example.com`;
const password = 'correct horse battery';
const day = 86_400_000;

interface KeyJson {
  id: string;
  userId: string;
  remaining: number | null;
  requestCount: number;
  lastRequest: Date | null;
  lastRefillAt: Date | null;
}

interface VerifyAnswer {
  valid: boolean;
  error: { code: string; message: string } | null;
  key: (KeyJson & Record<string, unknown>) | null;
}

describe('API keys through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let trustedOrigin: string;
  const browser = () => browserAuthClient(api.url, trustedOrigin);

  before(async () => {
    api = await startTestApi();
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  /** A new user, signed in in its own browser. */
  const signedInUser = async () => {
    const session = browser();
    const { data } = await session.client.signUp.email({
      email: uniqueEmail(),
      password,
      name: 'Key owner',
    });
    assert.ok(data?.user.id);
    return { ...session, userId: data.user.id };
  };

  /** A key made by server code, which may set what clients may not (uses, limits, permissions). */
  const serverKey = async (userId: string, input: NewApiKey) => {
    const em = api.orm.em.fork();
    return createApiKey(em, await em.findOneOrFail(User, { id: userId }), input);
  };

  const verify = (key: string, permissions?: Permissions) =>
    browser().client.$fetch<VerifyAnswer>('/api-key/verify', {
      method: 'POST',
      body: { key, ...(permissions ? { permissions } : {}) },
    });

  const refusalOf = async (key: string, permissions?: Permissions) => {
    const { data } = await verify(key, permissions);
    assert.equal(data?.valid, false);
    assert.equal(data?.key, null);
    return data?.error;
  };

  const setColumns = (id: string, values: Partial<ApiKey>) =>
    api.orm.em.fork().nativeUpdate(ApiKey, { id }, values);

  it('creates a key: the whole key only in that answer, its start and prefix kept', async () => {
    const { client, userId } = await signedInUser();
    const { data: created, error } = await client.apiKey.create({ name: 'ci', prefix: 'tg_' });
    assert.equal(error, null);
    assert.match(created?.key ?? '', /^tg_[A-Za-z]{64}$/);
    assert.equal(created?.start, created?.key.slice(0, 6));
    assert.equal(created?.prefix, 'tg_');
    assert.equal(created?.name, 'ci');
    assert.equal(created?.userId, userId);
    assert.equal(created?.enabled, true);
    assert.equal(created?.expiresAt, null);
    assert.equal(created?.remaining, null);
    // Better Auth's default per-key limit: 10 requests a day.
    assert.equal(created?.rateLimitEnabled, true);
    assert.equal(created?.rateLimitMax, 10);
    assert.equal(created?.rateLimitTimeWindow, day);
    assert.equal(created?.requestCount, 0);
    assert.equal(created?.metadata, null);
    assert.equal(created?.permissions, null);
    assert.ok(created?.createdAt instanceof Date);

    const id = created?.id ?? '';
    const got = await client.apiKey.get({ query: { id } });
    assert.equal(got.data?.id, id);
    assert.equal(got.data?.start, created?.start);
    assert.equal('key' in (got.data ?? {}), false);
    const listed = await client.apiKey.list();
    assert.deepEqual(
      listed.data?.map((key) => key.id),
      [id],
    );
    assert.equal('key' in (listed.data?.[0] ?? {}), false);
  });

  it('keeps only the SHA-256 of a key at rest', async () => {
    const { client } = await signedInUser();
    const { data } = await client.apiKey.create({ name: 'hashed' });
    const key = data?.key ?? '';
    assert.match(key, /^[A-Za-z]{64}$/);
    const row = await api.orm.em.fork().findOneOrFail(ApiKey, { id: data?.id ?? '' });
    assert.equal(row.key, createHash('sha256').update(key).digest('hex'));
    assert.equal(row.prefix, null);
    const stored = await api.orm.em
      .getConnection()
      .execute('select * from apikey where id = ?', [data?.id]);
    assert.equal(stored.length, 1);
    assert.ok(!JSON.stringify(stored).includes(key), 'no column holds the key');
  });

  it('creates with an expiry and metadata', async () => {
    const { client } = await signedInUser();
    const { data } = await client.apiKey.create({
      name: 'expiring',
      expiresIn: 2 * 86_400,
      metadata: { plan: 'pro', seats: 3 },
    });
    const expiresAt = data?.expiresAt?.getTime() ?? 0;
    assert.ok(Math.abs(expiresAt - (Date.now() + 2 * day)) < 60_000);
    assert.deepEqual(data?.metadata, { plan: 'pro', seats: 3 });
    const got = await client.apiKey.get({ query: { id: data?.id ?? '' } });
    assert.deepEqual(got.data?.metadata, { plan: 'pro', seats: 3 });
  });

  it('keeps a monthly refill interval, which outgrows a 32-bit column', async () => {
    const { userId } = await signedInUser();
    const { apiKey } = await serverKey(userId, {
      refillAmount: 100,
      refillInterval: 30 * day,
      remaining: 100,
    });
    const stored = await api.orm.em.fork().findOneOrFail(ApiKey, { id: apiKey.id });
    assert.equal(stored.refillInterval, 30 * day);
  });

  it('refuses bad keys to create, writing nothing', async () => {
    const { client, userId } = await signedInUser();
    const other = await signedInUser();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ remaining: 5 }, 400, 'SERVER_ONLY'],
      [{ rateLimitMax: 100 }, 400, 'SERVER_ONLY'],
      [{ permissions: { files: ['read'] } }, 400, 'SERVER_ONLY'],
      [{ refillAmount: 5, refillInterval: 1000 }, 400, 'SERVER_ONLY'],
      [{ userId: other.userId }, 401, 'UNAUTHORIZED_OR_INVALID_SESSION'],
      [{ expiresIn: 3600 }, 400, 'THE_EXPIRESIN_IS_SMALLER_THAN_THE_PREDEFINED_MINIMUM_VALUE'],
      [
        { expiresIn: 400 * 86_400 },
        400,
        'THE_EXPIRESIN_IS_LARGER_THAN_THE_PREDEFINED_MAXIMUM_VALUE',
      ],
      [{ name: 'n'.repeat(33) }, 400, 'THE_NAME_LENGTH_IS_EITHER_TOO_LARGE_OR_TOO_SMALL'],
      [{ prefix: 'p'.repeat(33) }, 400, 'THE_PREFIX_LENGTH_IS_EITHER_TOO_LARGE_OR_TOO_SMALL'],
      [{ prefix: 'not a prefix' }, 400, 'VALIDATION_ERROR'],
      [{ metadata: 'text' }, 400, 'METADATA_MUST_BE_AN_OBJECT_OR_UNDEFINED'],
    ];
    for (const [input, status, code] of cases) {
      const { error } = await client.apiKey.create(input);
      assert.equal(error?.status, status, JSON.stringify(input));
      const expected =
        code === 'SERVER_ONLY'
          ? 'THE_PROPERTY_YOURE_TRYING_TO_SET_CAN_ONLY_BE_SET_FROM_THE_SERVER_AUTH_INSTANCE_ONLY'
          : code;
      assert.equal(error?.code, expected, JSON.stringify(input));
    }
    const signedOut = await browser().client.apiKey.create({ name: 'nobody' });
    assert.equal(signedOut.error?.status, 401);
    assert.equal(signedOut.error?.code, 'UNAUTHORIZED_OR_INVALID_SESSION');
    assert.equal(signedOut.error?.message, 'Unauthorized or invalid session');
    assert.equal(await api.orm.em.fork().count(ApiKey, { user: userId }), 0);
  });

  it('updates a key and refuses what clients may not change', async () => {
    const { client } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'before', expiresIn: 86_400 });
    const keyId = created?.id ?? '';
    const { data: updated, error } = await client.apiKey.update({
      keyId,
      name: 'after',
      enabled: false,
      expiresIn: null,
      metadata: { team: 'ops' },
    });
    assert.equal(error, null);
    assert.equal(updated?.name, 'after');
    assert.equal(updated?.enabled, false);
    assert.equal(updated?.expiresAt, null);
    assert.deepEqual(updated?.metadata, { team: 'ops' });
    assert.equal('key' in (updated ?? {}), false);

    const nothing = await client.apiKey.update({ keyId });
    assert.equal(nothing.error?.status, 400);
    assert.equal(nothing.error?.code, 'NO_VALUES_TO_UPDATE');
    const serverOnly = await client.apiKey.update({ keyId, remaining: 100 });
    assert.equal(serverOnly.error?.status, 400);
    assert.match(serverOnly.error?.code ?? '', /^THE_PROPERTY_YOURE_TRYING_TO_SET/);
    const tooLong = await client.apiKey.update({ keyId, name: 'n'.repeat(33) });
    assert.equal(tooLong.error?.code, 'THE_NAME_LENGTH_IS_EITHER_TOO_LARGE_OR_TOO_SMALL');
    const got = await client.apiKey.get({ query: { id: keyId } });
    assert.equal(got.data?.name, 'after');
    assert.equal(got.data?.remaining, null);
  });

  it('deletes a key, and then knows it no more', async () => {
    const { client } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'short-lived' });
    const keyId = created?.id ?? '';
    const { data } = await client.apiKey.delete({ keyId });
    assert.deepEqual(data, { success: true });
    for (const { error } of [
      await client.apiKey.get({ query: { id: keyId } }),
      await client.apiKey.delete({ keyId }),
    ]) {
      assert.equal(error?.status, 404);
      assert.equal(error?.code, 'API_KEY_NOT_FOUND');
      assert.equal(error?.message, 'API Key not found');
    }
    assert.equal((await refusalOf(created?.key ?? ''))?.code, 'INVALID_API_KEY');
  });

  it("keeps another user's keys invisible and unmodifiable", async () => {
    const owner = await signedInUser();
    const intruder = await signedInUser();
    const { data: created } = await owner.client.apiKey.create({ name: 'mine' });
    const keyId = created?.id ?? '';
    const { client } = intruder;
    const attempts = [
      await client.apiKey.get({ query: { id: keyId } }),
      await client.apiKey.update({ keyId, name: 'stolen', enabled: false }),
      await client.apiKey.delete({ keyId }),
    ];
    for (const { error } of attempts) {
      assert.equal(error?.status, 404);
      assert.equal(error?.code, 'API_KEY_NOT_FOUND');
    }
    const asOwner = await client.apiKey.update({ keyId, userId: owner.userId, name: 'stolen' });
    assert.equal(asOwner.error?.status, 401);
    assert.deepEqual((await client.apiKey.list()).data, []);
    const { data: untouched } = await owner.client.apiKey.get({ query: { id: keyId } });
    assert.equal(untouched?.name, 'mine');
    assert.equal(untouched?.enabled, true);
  });

  it('answers the key routes without a session with 401 and no body', async () => {
    const { client } = browser();
    const notAKey = '0190a000-0000-7000-8000-000000000000';
    for (const { error } of [
      await client.apiKey.list(),
      await client.apiKey.get({ query: { id: notAKey } }),
      await client.apiKey.delete({ keyId: notAKey }),
    ]) {
      assert.equal(error?.status, 401);
      assert.equal(error?.code, undefined);
    }
    const update = await client.apiKey.update({ keyId: notAKey, name: 'x' });
    assert.equal(update.error?.code, 'UNAUTHORIZED_OR_INVALID_SESSION');
  });

  it('verifies a key, spending a use and counting the request', async () => {
    const { userId } = await signedInUser();
    const { key, apiKey } = await serverKey(userId, { remaining: 3, metadata: { a: 1 } });
    const { data } = await verify(key);
    assert.equal(data?.valid, true);
    assert.equal(data?.error, null);
    assert.equal(data?.key?.id, apiKey.id);
    assert.equal(data?.key?.userId, userId);
    assert.equal(data?.key?.remaining, 2);
    assert.equal(data?.key?.requestCount, 1);
    assert.ok(data?.key?.lastRequest instanceof Date);
    assert.deepEqual(data?.key?.metadata, { a: 1 });
    assert.equal('key' in (data?.key ?? {}), false);

    const unknown = await refusalOf('A'.repeat(64));
    assert.deepEqual(unknown, { message: 'Invalid API key.', code: 'INVALID_API_KEY' });
    // Better Auth answers a key too short to be one with another code.
    const short = await refusalOf('abc');
    assert.deepEqual(short, { message: 'Invalid API key.', code: 'KEY_NOT_FOUND' });
  });

  it('refuses a disabled key', async () => {
    const { client } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'off' });
    await client.apiKey.update({ keyId: created?.id ?? '', enabled: false });
    const refusal = await refusalOf(created?.key ?? '');
    assert.deepEqual(refusal, { message: 'API Key is disabled', code: 'KEY_DISABLED' });
  });

  it('refuses an expired key and deletes it', async () => {
    const { client } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'old', expiresIn: 86_400 });
    const id = created?.id ?? '';
    await setColumns(id, { expiresAt: new Date(Date.now() - 1000) });
    const refusal = await refusalOf(created?.key ?? '');
    assert.deepEqual(refusal, { message: 'API Key has expired', code: 'KEY_EXPIRED' });
    assert.equal(await api.orm.em.fork().count(ApiKey, { id }), 0);
  });

  it('refuses a key whose uses are spent, and deletes it when no refill is due', async () => {
    const { userId } = await signedInUser();
    const { key, apiKey } = await serverKey(userId, { remaining: 1 });
    assert.equal((await verify(key)).data?.key?.remaining, 0);
    const spent = await refusalOf(key);
    assert.deepEqual(spent, {
      message: 'API Key has reached its usage limit',
      code: 'USAGE_EXCEEDED',
    });
    assert.equal(await api.orm.em.fork().count(ApiKey, { id: apiKey.id }), 0);
  });

  it('refills a spent key once its refill interval has passed', async () => {
    const { userId } = await signedInUser();
    const { key, apiKey } = await serverKey(userId, {
      remaining: 1,
      refillAmount: 3,
      refillInterval: 60_000,
    });
    assert.equal((await verify(key)).data?.key?.remaining, 0);
    assert.equal((await refusalOf(key))?.code, 'USAGE_EXCEEDED');
    await setColumns(apiKey.id, { createdAt: new Date(Date.now() - 120_000) });
    const { data } = await verify(key);
    assert.equal(data?.valid, true);
    assert.equal(data?.key?.remaining, 2, 'refilled to 3, one spent');
    assert.ok(data?.key?.lastRefillAt instanceof Date);
  });

  it('checks permissions when asked to', async () => {
    const { userId } = await signedInUser();
    const { key } = await serverKey(userId, { permissions: { files: ['read', 'list'] } });
    assert.equal((await verify(key, { files: ['read'] })).data?.valid, true);
    const notGranted = { message: 'API Key not found', code: 'KEY_NOT_FOUND' };
    assert.deepEqual(await refusalOf(key, { files: ['write'] }), notGranted);
    assert.deepEqual(await refusalOf(key, { billing: ['read'] }), notGranted);
    const { key: unscoped } = await serverKey(userId, {});
    assert.deepEqual(await refusalOf(unscoped, { files: ['read'] }), notGranted);
  });

  it('rate-limits a key past its default 10 requests a day', async () => {
    const { client } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'busy' });
    const key = created?.key ?? '';
    for (let request = 1; request <= 10; request++) {
      assert.equal((await verify(key)).data?.valid, true, `request ${request}`);
    }
    const limited = await refusalOf(key);
    assert.deepEqual(limited, { message: 'Rate limit exceeded.', code: 'RATE_LIMITED' });
    // As a session the refusal carries when to try again.
    const { error } = await browser().client.getSession({
      fetchOptions: { headers: { 'x-api-key': key } },
    });
    assert.equal(error?.status, 401);
    assert.equal(error?.code, 'RATE_LIMITED');
    const { tryAgainIn } = (error as unknown as { details: { tryAgainIn: number } }).details;
    assert.ok(tryAgainIn > day - 60_000 && tryAgainIn <= day, String(tryAgainIn));
    const { data: after } = await client.apiKey.get({ query: { id: created?.id ?? '' } });
    assert.equal(after?.requestCount, 10, 'refused requests are not counted');
  });

  it('lets exactly `remaining` of many concurrent verifies through', async () => {
    const { userId } = await signedInUser();
    const { key, apiKey } = await serverKey(userId, { remaining: 5, rateLimitEnabled: false });
    const answers = await Promise.all(Array.from({ length: 12 }, () => verify(key)));
    const valid = answers.filter(({ data }) => data?.valid);
    assert.equal(valid.length, 5);
    assert.deepEqual(
      valid.map(({ data }) => data?.key?.remaining).sort(),
      [0, 1, 2, 3, 4],
      'each success saw its own use',
    );
    const codes = answers.filter(({ data }) => !data?.valid).map(({ data }) => data?.error?.code);
    // The first refusal deletes the spent key; the ones queued behind it find no key.
    assert.deepEqual(codes.sort(), [
      'INVALID_API_KEY',
      'INVALID_API_KEY',
      'INVALID_API_KEY',
      'INVALID_API_KEY',
      'INVALID_API_KEY',
      'INVALID_API_KEY',
      'USAGE_EXCEEDED',
    ]);
    assert.equal(await api.orm.em.fork().count(ApiKey, { id: apiKey.id }), 0);
  });

  it('lets exactly the rate limit of many concurrent verifies through', async () => {
    const { userId } = await signedInUser();
    const { key } = await serverKey(userId, { rateLimitMax: 3, rateLimitTimeWindow: 60_000 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => verify(key)));
    assert.equal(answers.filter(({ data }) => data?.valid).length, 3);
    assert.ok(answers.every(({ data }) => data?.valid || data?.error?.code === 'RATE_LIMITED'));
  });

  it('accepts an x-api-key header as a session', async () => {
    const { client: ownerClient, userId } = await signedInUser();
    const { data: created } = await ownerClient.apiKey.create({ name: 'as session' });
    const key = created?.key ?? '';
    const headers = { 'x-api-key': key };
    // A browser with no cookie at all: the key alone signs it in.
    const { client } = browser();
    const { data, error } = await client.getSession({ fetchOptions: { headers } });
    assert.equal(error, null);
    assert.equal(data?.user.id, userId);
    assert.equal(data?.session.id, created?.id);
    assert.equal(data?.session.userId, userId);
    assert.equal(data?.session.token, key);
    // The keys of the session Better Auth's api-key plugin makes from a key, and no others;
    // a signed-in browser's session keeps the organization and admin plugins' keys.
    const sessionKeys = [
      'createdAt',
      'expiresAt',
      'id',
      'ipAddress',
      'token',
      'updatedAt',
      'userAgent',
      'userId',
    ];
    assert.deepEqual(Object.keys(data?.session ?? {}).sort(), sessionKeys);
    const cookieSession = await ownerClient.getSession();
    assert.deepEqual(
      Object.keys(cookieSession.data?.session ?? {}).sort(),
      [...sessionKeys, 'activeOrganizationId', 'activeTeamId', 'impersonatedBy'].sort(),
    );
    const listed = await client.apiKey.list({ fetchOptions: { headers } });
    assert.deepEqual(
      listed.data?.map((apiKey) => apiKey.id),
      [created?.id],
    );
    // Each request spent one use of the key's rate limit.
    const row = await api.orm.em.fork().findOneOrFail(ApiKey, { id: created?.id ?? '' });
    assert.equal(row.requestCount, 2);

    const unknown = await client.getSession({
      fetchOptions: { headers: { 'x-api-key': 'B'.repeat(64) } },
    });
    assert.equal(unknown.error?.status, 401);
    assert.equal(unknown.error?.code, 'INVALID_API_KEY');
    const short = await client.getSession({ fetchOptions: { headers: { 'x-api-key': 'short' } } });
    assert.equal(short.error?.status, 403);
    assert.equal(short.error?.code, 'INVALID_API_KEY');

    await ownerClient.apiKey.update({ keyId: created?.id ?? '', enabled: false });
    const disabled = await client.getSession({ fetchOptions: { headers } });
    assert.equal(disabled.error?.status, 401);
    assert.equal(disabled.error?.code, 'KEY_DISABLED');
  });

  it("gives no session for a banned user's key", async () => {
    const { client, userId } = await signedInUser();
    const { data: created } = await client.apiKey.create({ name: 'banned' });
    await api.orm.em.fork().nativeUpdate(User, { id: userId }, { banned: true });
    const headers = { 'x-api-key': created?.key ?? '' };
    const session = await browser().client.getSession({ fetchOptions: { headers } });
    assert.equal(session.error, null);
    assert.equal(session.data, null);
    const listed = await browser().client.apiKey.list({ fetchOptions: { headers } });
    assert.equal(listed.error?.status, 401);
  });

  it('deletes every expired key on request, and only those', async () => {
    const { client } = await signedInUser();
    const { data: expired } = await client.apiKey.create({ name: 'gone', expiresIn: 86_400 });
    const { data: live } = await client.apiKey.create({ name: 'kept', expiresIn: 86_400 });
    await setColumns(expired?.id ?? '', { expiresAt: new Date(Date.now() - 1000) });
    const path = '/api-key/delete-all-expired-api-keys';
    const signedOut = await browser().client.$fetch(path, { method: 'POST' });
    assert.equal(signedOut.error?.status, 401);
    const { data } = await client.$fetch(path, { method: 'POST' });
    assert.deepEqual(data, { success: true, error: null });
    const listed = await client.apiKey.list();
    assert.deepEqual(
      listed.data?.map((apiKey) => apiKey.id),
      [live?.id],
    );
  });
});
