import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Session } from '../../db/entities/index.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import { maxCookieCacheLength } from './cookie-cache.ts';
import { browserAuthClient } from './testing.ts';

const password = 'correct horse battery';
const uniqueEmail = () => `sessions-${randomBytes(6).toString('hex')}@example.com`;

describe('sessions and profile through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let origin: string;
  before(async () => {
    api = await startTestApi();
    origin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  /** One user signed in on two devices (two cookie jars). */
  async function userOnTwoDevices() {
    const email = uniqueEmail();
    const laptop = browserAuthClient(api.url, origin);
    const phone = browserAuthClient(api.url, origin);
    await laptop.client.signUp.email({ email, password, name: 'Two devices' });
    await phone.client.signIn.email({ email, password });
    return { laptop, phone };
  }

  it('lists the signed-in user’s sessions, the current one with its token', async () => {
    const { laptop } = await userOnTwoDevices();
    const { data: current } = await laptop.client.getSession();
    const { data: sessions } = await laptop.client.listSessions();
    assert.equal(sessions?.length, 2);
    const tokens = sessions?.map((session) => session.token) ?? [];
    assert.ok(tokens.includes(current?.session.token ?? ''));
    assert.ok(sessions?.every((session) => session.userId === current?.user.id));
  });

  it('never lists another user’s sessions', async () => {
    const first = await userOnTwoDevices();
    const second = await userOnTwoDevices();
    const { data: firstUser } = await first.laptop.client.getSession();
    const { data: secondSessions } = await second.laptop.client.listSessions();
    assert.ok(secondSessions?.every((session) => session.userId !== firstUser?.user.id));
  });

  it('revokes one session by the value list-sessions shows', async () => {
    const { laptop, phone } = await userOnTwoDevices();
    const { data: phoneSession } = await phone.client.getSession();
    const { data: sessions } = await laptop.client.listSessions();
    const phoneEntry = sessions?.find((session) => session.id === phoneSession?.session.id);
    const { data } = await laptop.client.revokeSession({ token: phoneEntry?.token ?? '' });
    assert.deepEqual(data, { status: true });
    assert.equal((await phone.client.getSession()).data, null);
    assert.notEqual((await laptop.client.getSession()).data, null);
  });

  it('refuses to revoke another user’s session, and answers for an unknown one', async () => {
    const mine = await userOnTwoDevices();
    const theirs = await userOnTwoDevices();
    const { data: theirSession } = await theirs.laptop.client.getSession();
    const foreign = await mine.laptop.client.revokeSession({
      token: theirSession?.session.token ?? '',
    });
    assert.equal(foreign.error?.status, 401);
    assert.notEqual((await theirs.laptop.client.getSession()).data, null);
    const unknown = await mine.laptop.client.revokeSession({ token: 'no-such-session' });
    assert.equal(unknown.error?.status, 400);
    assert.equal(unknown.error?.code, 'SESSION_NOT_FOUND');
  });

  it('revokes the other sessions, keeping the current one', async () => {
    const { laptop, phone } = await userOnTwoDevices();
    await laptop.client.revokeOtherSessions();
    assert.equal((await phone.client.getSession()).data, null);
    assert.notEqual((await laptop.client.getSession()).data, null);
  });

  it('revokes every session, the current one included', async () => {
    const { laptop, phone } = await userOnTwoDevices();
    await laptop.client.revokeSessions();
    assert.equal((await phone.client.getSession()).data, null);
    assert.equal((await laptop.client.getSession()).data, null);
  });

  it('answers 401 with an empty body without a session', async () => {
    const response = await fetch(`${api.url}/api/auth/list-sessions`);
    assert.equal(response.status, 401);
    assert.equal(await response.text(), '');
    const { error } = await browserAuthClient(api.url, origin).client.revokeSessions();
    assert.equal(error?.status, 401);
  });

  it('updates the name and image, and refuses email, role and nothing', async () => {
    const { laptop } = await userOnTwoDevices();
    const { data } = await laptop.client.updateUser({
      name: 'Renamed',
      image: 'https://img.example/a.png',
    });
    assert.deepEqual(data, { status: true });
    const { data: session } = await laptop.client.getSession();
    assert.equal(session?.user.name, 'Renamed');
    assert.equal(session?.user.image, 'https://img.example/a.png');

    const post = (body: object) =>
      laptop.fetch(`${api.url}/api/auth/update-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const cases: [object, string][] = [
      [{ email: 'new@example.com' }, 'EMAIL_CAN_NOT_BE_UPDATED'],
      [{ role: 'admin' }, 'ROLE_IS_NOT_ALLOWED_TO_BE_SET'],
      [{ unknownField: 1 }, 'NO_FIELDS_TO_UPDATE'],
    ];
    for (const [body, code] of cases) {
      const response = await post(body);
      assert.equal(response.status, 400, code);
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
  });
});

describe('session cookie cache', () => {
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let origin: string;
  before(async () => {
    const config = loadRuntimeConfig();
    api = await startApiServer(
      { ...config, auth: { ...config.auth, sessionCookieCache: true } },
      { host: '127.0.0.1', port: 0 },
    );
    origin = new URL(config.api.publicUrl).origin;
  });
  after(() => api.close());

  async function signedInBrowser(name = 'Cached') {
    const browser = browserAuthClient(api.url, origin);
    await browser.client.signUp.email({ email: uniqueEmail(), password, name });
    await browser.client.getSession();
    return browser;
  }

  it('answers from the signed cookie until told to read the database', async () => {
    const browser = await signedInBrowser();
    assert.ok(browser.cookies.get('better-auth.session_data'), 'cache cookie written');
    const { data: session } = await browser.client.getSession();
    // The database no longer has the session; the cache still vouches for it, for a while.
    await api.orm.em.fork().nativeDelete(Session, { id: session?.session.id });
    assert.equal((await browser.client.getSession()).data?.user.id, session?.user.id);
    const fresh = await browser.client.getSession({ query: { disableCookieCache: true } });
    assert.equal(fresh.data, null);
  });

  it('treats a tampered cache cookie as signed out and clears it', async () => {
    const browser = await signedInBrowser();
    const cookies = browser.cookies
      .header()
      .replace(/better-auth\.session_data=([^;]+)/, (_, value: string) => {
        const envelope = JSON.parse(Buffer.from(value, 'base64url').toString());
        envelope.payload = envelope.payload.replace('"name":"Cached"', '"name":"Mallory"');
        return `better-auth.session_data=${Buffer.from(JSON.stringify(envelope)).toString('base64url')}`;
      });
    const response = await fetch(`${api.url}/api/auth/get-session`, {
      headers: { cookie: cookies },
    });
    assert.equal(await response.text(), 'null');
    assert.ok(
      response.headers.getSetCookie().some((line) => /^better-auth\.session_data=;/.test(line)),
    );
  });

  it('writes no cache cookie that would exceed 4093 characters', async () => {
    // A session row can outgrow a cookie: here through a very long User-Agent.
    const browser = browserAuthClient(api.url, origin);
    await browser.fetch(`${api.url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `agent/${'z'.repeat(4000)}` },
      body: JSON.stringify({ email: uniqueEmail(), password, name: 'Big' }),
    });
    const response = await browser.fetch(`${api.url}/api/auth/get-session`);
    const body = (await response.json()) as { user: { name: string } };
    assert.equal(body.user.name, 'Big');
    const cacheCookie = response.headers
      .getSetCookie()
      .find((line) => line.startsWith('better-auth.session_data='));
    assert.equal(cacheCookie, undefined, `nothing above ${maxCookieCacheLength} characters`);
  });
});
