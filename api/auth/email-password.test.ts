import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sessionIdFromToken } from '../../accounts/session-token.ts';
import { Session } from '../../db/entities/index.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient } from './testing.ts';

const sessionCookie = 'better-auth.session_token';
const uniqueEmail = () => `user-${randomBytes(6).toString('hex')}@example.com`;
const password = 'correct horse battery';

describe('email and password through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let trustedOrigin: string;
  const browser = () => browserAuthClient(api.url, trustedOrigin);

  before(async () => {
    api = await startTestApi();
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  it('signs up, is signed in by cookie, and reads its session', async () => {
    const { client, cookies } = browser();
    const email = uniqueEmail();
    const signUp = await client.signUp.email({ email, password, name: 'Ada' });
    assert.equal(signUp.error, null);
    assert.match(signUp.data?.token ?? '', /^[a-z2-7]{32}$/);
    assert.equal(signUp.data?.user.email, email);
    assert.equal(signUp.data?.user.emailVerified, false);
    // Better Auth's signed cookie: <token>.<base64 HMAC>, URL-encoded.
    assert.match(cookies.get(sessionCookie) ?? '', new RegExp(`^${signUp.data?.token}\\.[\\w%]+$`));

    const { data } = await client.getSession();
    assert.equal(data?.user.email, email);
    assert.equal(data?.session.token, signUp.data?.token);
    assert.equal(data?.session.userId, signUp.data?.user.id);
  });

  it('keeps only a hash of the session token at rest', async () => {
    const { client } = browser();
    const { data } = await client.signUp.email({ email: uniqueEmail(), password, name: 'Hash' });
    const token = data?.token ?? '';
    const rows = await api.orm.em.fork().find(Session, { user: data?.user.id });
    assert.deepEqual(
      rows.map((row) => row.id),
      [sessionIdFromToken(token)],
    );
    assert.ok(rows.every((row) => !JSON.stringify(row).includes(token)));
  });

  it('refuses a second account for the same email, whatever its case', async () => {
    const email = uniqueEmail();
    await browser().client.signUp.email({ email, password, name: 'First' });
    const { error } = await browser().client.signUp.email({
      email: email.toUpperCase(),
      password,
      name: 'Second',
    });
    assert.equal(error?.status, 422);
    assert.equal(error?.code, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
  });

  it('checks the email and the password length on sign-up', async () => {
    const { client } = browser();
    const cases = [
      [{ email: 'not-an-email', password }, 'INVALID_EMAIL'],
      [{ email: uniqueEmail(), password: 'short' }, 'PASSWORD_TOO_SHORT'],
      [{ email: uniqueEmail(), password: 'x'.repeat(129) }, 'PASSWORD_TOO_LONG'],
    ] as const;
    for (const [input, code] of cases) {
      const { error } = await client.signUp.email({ ...input, name: 'Bad' });
      assert.equal(error?.status, 400, code);
      assert.equal(error?.code, code);
    }
  });

  it('gives one answer for an unknown email and a wrong password', async () => {
    const email = uniqueEmail();
    await browser().client.signUp.email({ email, password, name: 'Known' });
    const wrongPassword = await browser().client.signIn.email({
      email,
      password: 'wrong password',
    });
    const unknownEmail = await browser().client.signIn.email({ email: uniqueEmail(), password });
    for (const { error } of [wrongPassword, unknownEmail]) {
      assert.equal(error?.status, 401);
      assert.equal(error?.code, 'INVALID_EMAIL_OR_PASSWORD');
      assert.equal(error?.message, 'Invalid email or password');
    }
  });

  it('signs in with a callback URL and answers where to go', async () => {
    const email = uniqueEmail();
    await browser().client.signUp.email({ email, password, name: 'Back' });
    const { data } = await browser().client.signIn.email({
      email,
      password,
      callbackURL: '/dashboard',
    });
    assert.equal(data?.redirect, true);
    assert.equal(data?.url, '/dashboard');
  });

  it('refuses a callback URL on an untrusted origin', async () => {
    const { error } = await browser().client.signIn.email({
      email: uniqueEmail(),
      password,
      callbackURL: 'https://evil.example/steal',
    });
    assert.equal(error?.status, 403);
    assert.equal(error?.code, 'INVALID_CALLBACKURL');
  });

  it('remembers a session only when asked to', async () => {
    const email = uniqueEmail();
    await browser().client.signUp.email({ email, password, name: 'Forget' });
    const forgetful = browser();
    const response = await forgetful.fetch(`${api.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, rememberMe: false }),
    });
    const setCookies = response.headers.getSetCookie();
    const session = setCookies.find((line) => line.startsWith(`${sessionCookie}=`)) ?? '';
    assert.doesNotMatch(session, /Max-Age/);
    assert.ok(setCookies.some((line) => line.startsWith('better-auth.dont_remember=')));
  });

  it('signs out: cookies cleared and the old token refused', async () => {
    const { client, cookies } = browser();
    await client.signUp.email({ email: uniqueEmail(), password, name: 'Leaving' });
    const oldCookie = cookies.header();
    const { data } = await client.signOut();
    assert.deepEqual(data, { success: true });
    assert.equal(cookies.get(sessionCookie), undefined);
    const replay = await fetch(`${api.url}/api/auth/get-session`, {
      headers: { cookie: oldCookie },
    });
    assert.equal(await replay.text(), 'null');
  });

  it('refuses cookie requests from an untrusted or missing origin', async () => {
    const { client, cookies } = browser();
    await client.signUp.email({ email: uniqueEmail(), password, name: 'Csrf' });
    const post = (origin?: string) =>
      fetch(`${api.url}/api/auth/sign-out`, {
        method: 'POST',
        headers: { cookie: cookies.header(), ...(origin ? { origin } : {}) },
      });
    const foreign = await post('https://evil.example');
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { code: string }).code, 'INVALID_ORIGIN');
    const missing = await post();
    assert.equal(missing.status, 403);
    assert.equal(((await missing.json()) as { code: string }).code, 'MISSING_OR_NULL_ORIGIN');
  });

  it('deletes an expired session instead of answering with it', async () => {
    const { client } = browser();
    const { data } = await client.signUp.email({ email: uniqueEmail(), password, name: 'Old' });
    const em = api.orm.em.fork();
    await em.nativeUpdate(
      Session,
      { user: data?.user.id },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    assert.equal((await client.getSession()).data, null);
    assert.equal(await em.count(Session, { user: data?.user.id }), 0);
  });

  it('slides a session forward once it is a day old, unless told not to', async () => {
    const { client } = browser();
    const { data } = await client.signUp.email({ email: uniqueEmail(), password, name: 'Slide' });
    const em = api.orm.em.fork();
    const twoDaysIntoAWeek = new Date(Date.now() + 5 * 86_400_000);
    await em.nativeUpdate(Session, { user: data?.user.id }, { expiresAt: twoDaysIntoAWeek });

    const unrefreshed = await client.getSession({ query: { disableRefresh: true } });
    assert.equal(
      new Date(unrefreshed.data?.session.expiresAt ?? 0).getTime(),
      twoDaysIntoAWeek.getTime(),
    );

    const refreshed = await client.getSession();
    const expiresAt = new Date(refreshed.data?.session.expiresAt ?? 0).getTime();
    assert.ok(expiresAt > Date.now() + 6.9 * 86_400_000, 'extended to a full week');
  });

  it('accepts the session token as a bearer token', async () => {
    const { data } = await browser().client.signUp.email({
      email: uniqueEmail(),
      password,
      name: 'B',
    });
    const response = await fetch(`${api.url}/api/auth/get-session`, {
      headers: { authorization: `Bearer ${data?.token}` },
    });
    const body = (await response.json()) as { user: { id: string } };
    assert.equal(body.user.id, data?.user.id);
  });

  it('answers get-session without a session with 200 null', async () => {
    const response = await fetch(`${api.url}/api/auth/get-session`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'null');
  });
});
