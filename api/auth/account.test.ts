import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSession } from '../../accounts/sessions.ts';
import { authSettings } from '../../accounts/settings.ts';
import { setPassword } from '../../accounts/users.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Account, Session, User, Verification } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient } from './testing.ts';

const password = 'correct horse battery';
const uniqueEmail = () => `account-${randomBytes(6).toString('hex')}@example.com`;
const hour = 3_600_000;

const subjects = {
  verify: /^Verify your email address$/,
  reset: /^Reset your password$/,
  deletion: /^Confirm deleting your account$/,
  emailChange: /^Confirm your new email address$/,
};

/**
 * The link in the newest mail to `to` with a matching subject, waiting for one whose link is
 * not among `seen` (an earlier mail to the same address may already be there).
 */
async function mailedLink(to: string, subject: RegExp, seen: string[] = []): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [link] = extractLinks(await waitForMail({ to, subject }));
    if (link && !seen.includes(link)) return link;
    if (Date.now() > deadline) throw new Error(`No new mail to ${to} matching ${subject}`);
    await sleep(100);
  }
}

const tokenInQuery = (link: string) => new URL(link).searchParams.get('token') ?? '';

describe('account routes through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let trustedOrigin: string;
  const browser = () => browserAuthClient(api.url, trustedOrigin);

  /** A mailed link points at the public URL; the test's API listens elsewhere. */
  const onApi = (link: string) => {
    const url = new URL(link);
    return `${api.url}${url.pathname}${url.search}`;
  };

  /** A browser signed up as a new user. */
  async function signedUp(name = 'Ada') {
    const signedUpBrowser = browser();
    const email = uniqueEmail();
    const { data, error } = await signedUpBrowser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    assert.ok(data);
    return { ...signedUpBrowser, email, user: data.user };
  }

  /** A user who signed up through a social provider (no password), and a session token. */
  async function socialOnlyUser() {
    const em = api.orm.em.fork();
    const user = em.create(User, { email: uniqueEmail(), name: 'Social' });
    const { token } = createSession(em, authSettings(api.config), user, {
      rememberMe: true,
      ipAddress: null,
      userAgent: null,
    });
    await em.flush();
    return { user, bearer: { authorization: `Bearer ${token}` } };
  }

  const verifications = (prefix: string) =>
    api.orm.em.fork().find(Verification, { identifier: { $like: `${prefix}:%` } });

  const expire = (identifier: string) =>
    api.orm.em
      .fork()
      .nativeUpdate(Verification, { identifier }, { expiresAt: new Date(Date.now() - 1000) });

  /** A request without cookies; it fails rather than waits forever for its answer. */
  const postSignedOut = (path: string, body: unknown) =>
    fetch(`${api.url}/api/auth${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });

  /**
   * Runs `check` while the mailed tokens' table is locked, so that nothing can write a token
   * (and so mail a link) until it returns; `tokensNow` counts the tokens of a kind meanwhile.
   */
  async function whileTokensAreLocked<T>(
    check: (tokensNow: (prefix: string) => Promise<number>) => Promise<T>,
  ): Promise<T> {
    return api.orm.em.fork().transactional(async (em) => {
      const connection = em.getConnection();
      const transaction = em.getTransactionContext();
      await connection.execute(
        'lock table verifications in exclusive mode',
        [],
        'run',
        transaction,
      );
      return check(async (prefix) => {
        const [row] = await connection.execute<{ count: string }[]>(
          'select count(*) from verifications where identifier like ?',
          [`${prefix}:%`],
          'all',
          transaction,
        );
        return Number(row?.count);
      });
    });
  }

  const markVerified = (userId: string) =>
    api.orm.em.fork().nativeUpdate(User, { id: userId }, { emailVerified: true });

  before(async () => {
    api = await startTestApi();
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  describe('email verification', () => {
    it('mails a link that verifies the address and returns to the callback', async () => {
      const { client, fetch, email } = await signedUp();
      const sent = await client.sendVerificationEmail({ email, callbackURL: '/welcome' });
      assert.deepEqual(sent.data, { status: true });

      const link = await mailedLink(email, subjects.verify);
      assert.ok(link.startsWith(`${trustedOrigin}/api/auth/verify-email?token=`), link);
      assert.match(tokenInQuery(link), /^[A-Za-z0-9]{32}$/);
      assert.equal(new URL(link).searchParams.get('callbackURL'), '/welcome');

      const followed = await fetch(onApi(link));
      assert.equal(followed.status, 302);
      assert.equal(followed.headers.get('location'), '/welcome');
      assert.equal((await client.getSession()).data?.user.emailVerified, true);
    });

    it('answers JSON without a callbackURL; the link works again while it lives', async () => {
      const { client, email } = await signedUp();
      await client.sendVerificationEmail({ email });
      const link = await mailedLink(email, subjects.verify);
      assert.equal(new URL(link).searchParams.get('callbackURL'), '/');
      const token = tokenInQuery(link);
      for (let attempt = 0; attempt < 2; attempt++) {
        const { data, error } = await browser().client.verifyEmail({ query: { token } });
        assert.equal(error, null);
        assert.deepEqual(data, { status: true, user: null });
      }
    });

    it('keeps only a hash of the token, for an hour', async () => {
      const { client, email } = await signedUp();
      await client.sendVerificationEmail({ email });
      const token = tokenInQuery(await mailedLink(email, subjects.verify));
      const rows = await verifications('email-verification');
      assert.ok(rows.every((row) => !JSON.stringify(row).includes(token)));
      const row = rows.find((candidate) => candidate.identifier.endsWith(hashToken(token)));
      assert.ok(row, 'the row is found by the hash');
      assert.ok(Math.abs(row.expiresAt.getTime() - (Date.now() + hour)) < 60_000);
    });

    it('sends only to the signed-in user’s own, unverified address', async () => {
      const { client, email, user } = await signedUp();
      const other = await client.sendVerificationEmail({ email: uniqueEmail() });
      assert.equal(other.error?.status, 400);
      assert.equal(other.error?.code, 'YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_YOUR_OWN_EMAIL');

      await markVerified(user.id);
      const again = await client.sendVerificationEmail({ email });
      assert.equal(again.error?.status, 400);
      assert.equal(
        again.error?.code,
        'YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_AN_UNVERIFIED_EMAIL',
      );
    });

    it('answers a signed-out request before it looks the address up or mails', async () => {
      const { email } = await signedUp();
      const held = await whileTokensAreLocked(async (tokensNow) => {
        const before = await tokensNow('email-verification');
        const answer = await postSignedOut('/send-verification-email', { email });
        assert.equal(answer.status, 200);
        assert.equal(await tokensNow('email-verification'), before, 'no token yet');
        return answer.json();
      });
      assert.deepEqual(held, { status: true });
      assert.ok(await mailedLink(email, subjects.verify));
    });

    it('answers an unknown address like a known one when signed out', async () => {
      const { email } = await signedUp();
      const { client } = browser();
      const unknown = await client.sendVerificationEmail({ email: uniqueEmail() });
      const known = await client.sendVerificationEmail({ email });
      assert.deepEqual(unknown.data, { status: true });
      assert.deepEqual(known.data, { status: true });
      await mailedLink(email, subjects.verify);

      const invalid = await client.sendVerificationEmail({ email: 'not-an-email' });
      assert.equal(invalid.error?.status, 400);
      assert.equal(invalid.error?.code, 'VALIDATION_ERROR');
    });

    it('reports an unknown, expired or orphaned token, as JSON or on the callback', async () => {
      const { client } = browser();
      const unknown = await client.verifyEmail({ query: { token: 'no-such-token' } });
      assert.equal(unknown.error?.status, 401);
      assert.equal(unknown.error?.code, 'INVALID_TOKEN');
      assert.equal(unknown.error?.message, 'invalid_token');

      const { fetch } = browser();
      const redirected = await fetch(
        `${api.url}/api/auth/verify-email?token=nope&callbackURL=${encodeURIComponent('/done?tab=1')}`,
      );
      assert.equal(redirected.status, 302);
      assert.equal(redirected.headers.get('location'), '/done?tab=1&error=invalid_token');

      const owner = await signedUp();
      await owner.client.sendVerificationEmail({ email: owner.email, callbackURL: '/done' });
      const link = await mailedLink(owner.email, subjects.verify);
      await expire(`email-verification:${hashToken(tokenInQuery(link))}`);
      const expired = await fetch(onApi(link));
      assert.equal(expired.headers.get('location'), '/done?error=token_expired');
      const expiredJson = await client.verifyEmail({ query: { token: tokenInQuery(link) } });
      assert.equal(expiredJson.error?.code, 'TOKEN_EXPIRED');

      // A token is for one address: after the account moves, the old link is dead.
      const mover = await signedUp();
      await mover.client.sendVerificationEmail({ email: mover.email });
      const oldLink = await mailedLink(mover.email, subjects.verify);
      await mover.client.changeEmail({ newEmail: uniqueEmail() });
      const orphaned = await client.verifyEmail({ query: { token: tokenInQuery(oldLink) } });
      assert.equal(orphaned.error?.status, 401);
      assert.equal(orphaned.error?.code, 'USER_NOT_FOUND');
      assert.equal(orphaned.error?.message, 'user_not_found');
    });

    it('refuses an untrusted callbackURL on the request and on the link', async () => {
      const { client, fetch, email } = await signedUp();
      const request = await client.sendVerificationEmail({
        email,
        callbackURL: 'https://evil.example/next',
      });
      assert.equal(request.error?.status, 403);
      assert.equal(request.error?.code, 'INVALID_CALLBACKURL');

      await client.sendVerificationEmail({ email });
      const token = tokenInQuery(await mailedLink(email, subjects.verify));
      const link = await fetch(
        `${api.url}/api/auth/verify-email?token=${token}&callbackURL=https://evil.example/`,
      );
      assert.equal(link.status, 403);
      assert.equal(((await link.json()) as { code: string }).code, 'INVALID_CALLBACKURL');
      assert.equal((await client.getSession()).data?.user.emailVerified, false);
    });
  });

  describe('password reset', () => {
    const newPassword = 'a brand new passphrase';

    it('mails a link to the app’s reset page; the token sets a new password once', async () => {
      const owner = await signedUp();
      const { client, fetch } = browser();
      const asked = await client.requestPasswordReset({ email: owner.email, redirectTo: '/reset' });
      assert.deepEqual(asked.data, {
        status: true,
        message: 'If this email exists in our system, check your email for the reset link',
      });

      const link = await mailedLink(owner.email, subjects.reset);
      const match = /\/api\/auth\/reset-password\/([A-Za-z0-9]{24})\?callbackURL=%2Freset$/.exec(
        link,
      );
      assert.ok(match, link);
      const token = match[1] ?? '';
      const followed = await fetch(onApi(link));
      assert.equal(followed.status, 302);
      assert.equal(followed.headers.get('location'), `${trustedOrigin}/reset?token=${token}`);

      assert.deepEqual((await client.resetPassword({ newPassword, token })).data, {
        status: true,
      });
      const oldPassword = await browser().client.signIn.email({ email: owner.email, password });
      assert.equal(oldPassword.error?.code, 'INVALID_EMAIL_OR_PASSWORD');
      const signIn = await browser().client.signIn.email({
        email: owner.email,
        password: newPassword,
      });
      assert.equal(signIn.error, null);

      const reused = await client.resetPassword({ newPassword: 'yet another passphrase', token });
      assert.equal(reused.error?.status, 400);
      assert.equal(reused.error?.code, 'INVALID_TOKEN');
      const usedLink = await fetch(onApi(link));
      assert.equal(usedLink.headers.get('location'), `${trustedOrigin}/reset?error=INVALID_TOKEN`);
    });

    it('ends every session of the account: whoever was signed in is signed out', async () => {
      // The attack: someone signed in as the owner (a stolen password, a shared computer)
      // stays signed in after the owner resets the password.
      const owner = await signedUp();
      const intruder = browser();
      const intruding = await intruder.client.signIn.email({ email: owner.email, password });
      assert.ok(intruding.data?.token);
      const bearer = { authorization: `Bearer ${intruding.data.token}` };

      await browser().client.requestPasswordReset({ email: owner.email });
      const token = new URL(await mailedLink(owner.email, subjects.reset)).pathname
        .split('/')
        .pop();
      const reset = await browser().client.resetPassword({ newPassword, token: token ?? '' });
      assert.deepEqual(reset.data, { status: true });

      assert.equal((await intruder.client.getSession()).data, null);
      assert.equal((await owner.client.getSession()).data, null);
      const withBearer = await fetch(`${api.url}/api/auth/get-session`, { headers: bearer });
      assert.equal(await withBearer.text(), 'null');
      assert.equal(await api.orm.em.fork().count(Session, { user: owner.user.id }), 0);
    });

    it('answers alike for known and unknown addresses, each route as Better Auth answers', async () => {
      const { email } = await signedUp();
      const { client } = browser();
      for (const known of [email, email.toUpperCase()]) {
        assert.deepEqual((await client.requestPasswordReset({ email: known })).data, {
          status: true,
          message: 'If this email exists in our system, check your email for the reset link',
        });
        assert.deepEqual((await client.forgetPassword({ email: known })).data, { status: true });
      }
      const unknown = uniqueEmail();
      assert.deepEqual((await client.requestPasswordReset({ email: unknown })).data, {
        status: true,
        message: 'If this email exists in our system, check your email for the reset link',
      });
      // Better Auth adds that message here, for an unknown address only: not Tollgate.
      assert.deepEqual((await client.forgetPassword({ email: unknown })).data, { status: true });
      const invalid = await client.requestPasswordReset({ email: 'nope' });
      assert.equal(invalid.error?.code, 'VALIDATION_ERROR');
    });

    it('answers before it looks the address up or mails: a known address answers as soon', async () => {
      const { email } = await signedUp();
      const held = await whileTokensAreLocked(async (tokensNow) => {
        const before = await tokensNow('reset-password');
        // With no token row writable, an answer that waited for the mail would never come.
        const answer = await postSignedOut('/request-password-reset', { email });
        assert.equal(answer.status, 200);
        assert.equal(await tokensNow('reset-password'), before, 'no token yet');
        return answer.json();
      });
      assert.deepEqual(held, {
        status: true,
        message: 'If this email exists in our system, check your email for the reset link',
      });
      // Once the table is free, the work done after answering mails the link.
      assert.ok(await mailedLink(email, subjects.reset));
    });

    it('takes the token from the query, checks the length first and keeps only a hash', async () => {
      const { email } = await signedUp();
      const { client } = browser();
      await client.forgetPassword({ email });
      const link = await mailedLink(email, subjects.reset);
      const token = new URL(link).pathname.split('/').pop() ?? '';

      const rows = await verifications('reset-password');
      assert.ok(rows.every((row) => !JSON.stringify(row).includes(token)));
      const row = rows.find((candidate) => candidate.identifier.endsWith(hashToken(token)));
      assert.ok(row && Math.abs(row.expiresAt.getTime() - (Date.now() + hour)) < 60_000);

      const tooShort = await client.resetPassword({ newPassword: 'short' }, { query: { token } });
      assert.equal(tooShort.error?.code, 'PASSWORD_TOO_SHORT');
      const tooLong = await client.resetPassword({ newPassword: 'x'.repeat(129), token });
      assert.equal(tooLong.error?.code, 'PASSWORD_TOO_LONG');
      const noToken = await client.resetPassword({ newPassword });
      assert.equal(noToken.error?.status, 400);
      assert.equal(noToken.error?.code, 'INVALID_TOKEN');

      // The refusals above did not use the token up.
      const reset = await client.resetPassword({ newPassword }, { query: { token } });
      assert.deepEqual(reset.data, { status: true });
    });

    it('refuses an expired token on the link and on reset', async () => {
      const { email } = await signedUp();
      const { client, fetch } = browser();
      await client.requestPasswordReset({ email, redirectTo: '/reset' });
      const link = await mailedLink(email, subjects.reset);
      const token = new URL(link).pathname.split('/').pop() ?? '';
      await expire(`reset-password:${hashToken(token)}`);
      const followed = await fetch(onApi(link));
      assert.equal(followed.headers.get('location'), `${trustedOrigin}/reset?error=INVALID_TOKEN`);
      const reset = await client.resetPassword({ newPassword, token });
      assert.equal(reset.error?.code, 'INVALID_TOKEN');
    });

    it('sends a link mailed without redirectTo to the error page, as Better Auth does', async () => {
      const { email } = await signedUp();
      await browser().client.requestPasswordReset({ email });
      const link = await mailedLink(email, subjects.reset);
      assert.ok(link.endsWith('?callbackURL='), link);
      const followed = await browser().fetch(onApi(link));
      assert.equal(
        followed.headers.get('location'),
        `${trustedOrigin}/api/auth/error?error=INVALID_TOKEN`,
      );
    });

    it('refuses an untrusted redirectTo and callbackURL', async () => {
      const asked = await browser().client.requestPasswordReset({
        email: uniqueEmail(),
        redirectTo: 'https://evil.example/reset',
      });
      assert.equal(asked.error?.status, 403);
      assert.equal(asked.error?.code, 'INVALID_REDIRECTURL');
      const link = await fetch(
        `${api.url}/api/auth/reset-password/abc?callbackURL=${encodeURIComponent('//evil.example')}`,
        { redirect: 'manual' },
      );
      assert.equal(link.status, 403);
      assert.equal(((await link.json()) as { code: string }).code, 'INVALID_CALLBACKURL');
    });

    it('gives a user without a password their first one', async () => {
      const { user } = await socialOnlyUser();
      const { client } = browser();
      await client.requestPasswordReset({ email: user.email });
      const link = await mailedLink(user.email, subjects.reset);
      const token = new URL(link).pathname.split('/').pop() ?? '';
      assert.deepEqual((await client.resetPassword({ newPassword, token })).data, {
        status: true,
      });
      const signIn = await client.signIn.email({ email: user.email, password: newPassword });
      assert.equal(signIn.error, null);
    });
  });

  describe('change password', () => {
    const newPassword = 'another good passphrase';

    it('changes the password and keeps other sessions unless asked', async () => {
      const owner = await signedUp();
      const elsewhere = browser();
      await elsewhere.client.signIn.email({ email: owner.email, password });
      const { data } = await owner.client.changePassword({
        currentPassword: password,
        newPassword,
      });
      assert.equal(data?.token, null);
      assert.equal(data?.user.id, owner.user.id);
      assert.equal(data?.user.email, owner.email);
      assert.equal((await elsewhere.client.getSession()).data?.user.id, owner.user.id);
      const old = await browser().client.signIn.email({ email: owner.email, password });
      assert.equal(old.error?.code, 'INVALID_EMAIL_OR_PASSWORD');
    });

    it('with revokeOtherSessions ends every session and signs this browser in anew', async () => {
      const owner = await signedUp();
      const oldCookies = owner.cookies.header();
      const elsewhere = browser();
      await elsewhere.client.signIn.email({ email: owner.email, password });
      const { data } = await owner.client.changePassword({
        currentPassword: password,
        newPassword,
        revokeOtherSessions: true,
      });
      assert.match(data?.token ?? '', /^[a-z2-7]{32}$/);
      assert.equal((await owner.client.getSession()).data?.session.token, data?.token);
      assert.equal((await elsewhere.client.getSession()).data, null);
      const replay = await fetch(`${api.url}/api/auth/get-session`, {
        headers: { cookie: oldCookies },
      });
      assert.equal(await replay.text(), 'null');
      const sessions = await api.orm.em.fork().count(Session, { user: owner.user.id });
      assert.equal(sessions, 1);
    });

    it('refuses a wrong password, bad lengths, no password and no session', async () => {
      const { client } = await signedUp();
      const wrong = await client.changePassword({ currentPassword: 'wrong one!', newPassword });
      assert.equal(wrong.error?.status, 400);
      assert.equal(wrong.error?.code, 'INVALID_PASSWORD');
      const short = await client.changePassword({ currentPassword: password, newPassword: 'x' });
      assert.equal(short.error?.code, 'PASSWORD_TOO_SHORT');
      const long = await client.changePassword({
        currentPassword: password,
        newPassword: 'x'.repeat(129),
      });
      assert.equal(long.error?.code, 'PASSWORD_TOO_LONG');

      const { bearer } = await socialOnlyUser();
      const noCredential = await browser().client.changePassword(
        { currentPassword: password, newPassword },
        { headers: bearer },
      );
      assert.equal(noCredential.error?.code, 'CREDENTIAL_ACCOUNT_NOT_FOUND');

      const signedOut = await browser().client.changePassword({
        currentPassword: password,
        newPassword,
      });
      assert.equal(signedOut.error?.status, 401);
    });
  });

  describe('set password (server only)', () => {
    it('has no HTTP route', async () => {
      const response = await fetch(`${api.url}/api/auth/set-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ newPassword: password }),
      });
      assert.equal(response.status, 404);
    });

    it('gives a user without a password one, and only once', async () => {
      const { user } = await socialOnlyUser();
      const em = api.orm.em.fork();
      await assert.rejects(setPassword(em, user.id, 'short'), { code: 'PASSWORD_TOO_SHORT' });
      assert.deepEqual(await setPassword(em, user.id, password), { status: true });
      const signIn = await browser().client.signIn.email({ email: user.email, password });
      assert.equal(signIn.error, null);
      await assert.rejects(setPassword(em, user.id, 'a different password'), {
        refusal: 'invalid',
        code: 'USER_ALREADY_HAS_A_PASSWORD',
        message: 'user already has a password',
      });
    });
  });

  describe('change email', () => {
    it('moves an unverified account at once and verifies the new address', async () => {
      const { client, fetch } = await signedUp();
      const newEmail = uniqueEmail();
      const { data } = await client.changeEmail({ newEmail, callbackURL: '/settings' });
      assert.deepEqual(data, { status: true });
      const session = await client.getSession();
      assert.equal(session.data?.user.email, newEmail);
      assert.equal(session.data?.user.emailVerified, false);

      const link = await mailedLink(newEmail, subjects.verify);
      const followed = await fetch(onApi(link));
      assert.equal(followed.headers.get('location'), '/settings');
      assert.equal((await client.getSession()).data?.user.emailVerified, true);
    });

    it('refuses the same address, a taken one, a malformed one and no session', async () => {
      const { client, email } = await signedUp();
      const taken = await signedUp('Other');
      const same = await client.changeEmail({ newEmail: email.toUpperCase() });
      assert.equal(same.error?.status, 400);
      assert.equal(same.error?.code, 'EMAIL_IS_THE_SAME');
      const used = await client.changeEmail({ newEmail: taken.email });
      assert.equal(used.error?.status, 400);
      assert.equal(used.error?.code, 'COULDNT_UPDATE_YOUR_EMAIL');
      assert.equal(used.error?.message, "Couldn't update your email");
      const malformed = await client.changeEmail({ newEmail: 'nope' });
      assert.equal(malformed.error?.code, 'VALIDATION_ERROR');
      const signedOut = await browser().client.changeEmail({ newEmail: uniqueEmail() });
      assert.equal(signedOut.error?.status, 401);
    });

    it('has a verified account confirm from its current address first', async () => {
      const owner = await signedUp();
      await markVerified(owner.user.id);
      const newEmail = uniqueEmail();
      const { data } = await owner.client.changeEmail({ newEmail, callbackURL: '/moved' });
      assert.deepEqual(data, { status: true });
      assert.equal((await owner.client.getSession()).data?.user.email, owner.email);

      const mail = await waitForMail({ to: owner.email, subject: subjects.emailChange });
      assert.match(mail.text, new RegExp(newEmail.replaceAll('.', '\\.')));
      const [link = ''] = extractLinks(mail);

      // Only the account's owner, signed in, can confirm.
      const stranger = await signedUp('Stranger');
      for (const other of [browser(), stranger]) {
        const refused = await other.fetch(onApi(link));
        assert.equal(refused.headers.get('location'), '/moved?error=unauthorized');
      }
      const refusedJson = await browser().client.verifyEmail({
        query: { token: tokenInQuery(link) },
      });
      assert.equal(refusedJson.error?.status, 401);
      assert.equal(refusedJson.error?.code, 'UNAUTHORIZED');
      assert.equal((await owner.client.getSession()).data?.user.email, owner.email);

      const confirmed = await owner.fetch(onApi(link));
      assert.equal(confirmed.headers.get('location'), '/moved');
      const moved = await owner.client.getSession();
      assert.equal(moved.data?.user.email, newEmail);
      assert.equal(moved.data?.user.emailVerified, false);

      const verifyLink = await mailedLink(newEmail, subjects.verify);
      await owner.fetch(onApi(verifyLink));
      assert.equal((await owner.client.getSession()).data?.user.emailVerified, true);

      // The confirmation is for the old address, which the account no longer has.
      const again = await owner.fetch(onApi(link));
      assert.equal(again.headers.get('location'), '/moved?error=user_not_found');
    });
  });

  describe('delete user', () => {
    it('mails a link that deletes the signed-in owner and everything with them', async () => {
      const owner = await signedUp();
      const { data } = await owner.client.deleteUser({ callbackURL: '/goodbye' });
      assert.deepEqual(data, { success: true, message: 'Verification email sent' });
      const em = api.orm.em.fork();
      assert.equal(await em.count(User, { id: owner.user.id }), 1);

      const link = await mailedLink(owner.email, subjects.deletion);
      const token = tokenInQuery(link);
      assert.match(token, /^[0-9a-z]{32}$/);
      assert.equal(new URL(link).pathname, '/api/auth/delete-user/callback');
      const rows = await verifications('delete-account');
      assert.ok(rows.every((row) => !JSON.stringify(row).includes(token)));
      const row = rows.find((candidate) => candidate.identifier.endsWith(hashToken(token)));
      assert.ok(row && Math.abs(row.expiresAt.getTime() - (Date.now() + 24 * hour)) < 60_000);

      const followed = await owner.fetch(onApi(link));
      assert.equal(followed.status, 302);
      assert.equal(followed.headers.get('location'), '/goodbye');
      const cleared = followed.headers.getSetCookie().filter((line) => /Max-Age=0/.test(line));
      assert.equal(cleared.length, 3);
      assert.equal(owner.cookies.header(), '');
      assert.equal(await em.count(User, { id: owner.user.id }), 0);
      assert.equal(await em.count(Session, { user: owner.user.id }), 0);
      assert.equal(await em.count(Account, { user: owner.user.id }), 0);
      assert.equal(await em.count(Verification, { id: row.id }), 0);
    });

    it('checks the password when given, then mails the link', async () => {
      const { client, email } = await signedUp();
      const wrong = await client.deleteUser({ password: 'not my password' });
      assert.equal(wrong.error?.status, 400);
      assert.equal(wrong.error?.code, 'INVALID_PASSWORD');
      const right = await client.deleteUser({ password });
      assert.deepEqual(right.data, { success: true, message: 'Verification email sent' });
      await mailedLink(email, subjects.deletion);
    });

    it('deletes at once with the mailed token in the body, or as JSON from the link', async () => {
      const first = await signedUp();
      await first.client.deleteUser({});
      const token = tokenInQuery(await mailedLink(first.email, subjects.deletion));
      const { data } = await first.client.deleteUser({ token });
      assert.deepEqual(data, { success: true, message: 'User deleted' });
      assert.equal((await first.client.getSession()).data, null);

      const second = await signedUp();
      await second.client.deleteUser({});
      const secondToken = tokenInQuery(await mailedLink(second.email, subjects.deletion));
      const callback = await second.client.deleteUser.callback({ query: { token: secondToken } });
      assert.deepEqual(callback.data, { success: true, message: 'User deleted' });
      assert.equal(await api.orm.em.fork().count(User, { id: second.user.id }), 0);
    });

    it('refuses another user’s token, an expired one, and no session', async () => {
      const owner = await signedUp();
      await owner.client.deleteUser({});
      const link = await mailedLink(owner.email, subjects.deletion);
      const token = tokenInQuery(link);

      const stranger = await signedUp('Stranger');
      const byStranger = await stranger.client.deleteUser({ token });
      assert.equal(byStranger.error?.status, 404);
      assert.equal(byStranger.error?.code, 'INVALID_TOKEN');
      const strangerLink = await stranger.fetch(onApi(link));
      assert.equal(strangerLink.status, 404);
      const signedOut = await browser().client.deleteUser.callback({ query: { token } });
      assert.equal(signedOut.error?.status, 404);
      assert.equal(signedOut.error?.code, 'FAILED_TO_GET_USER_INFO');
      const noSession = await browser().client.deleteUser({});
      assert.equal(noSession.error?.status, 401);
      const em = api.orm.em.fork();
      assert.equal(await em.count(User, { id: { $in: [owner.user.id, stranger.user.id] } }), 2);

      await expire(`delete-account:${hashToken(token)}`);
      const expired = await owner.client.deleteUser({ token });
      assert.equal(expired.error?.status, 404);
      assert.equal(expired.error?.code, 'INVALID_TOKEN');
      assert.equal(await em.count(User, { id: owner.user.id }), 1);
    });

    it('refuses an untrusted callbackURL on the request and on the link', async () => {
      const { client, fetch, email } = await signedUp();
      const request = await client.deleteUser({ callbackURL: 'https://evil.example/' });
      assert.equal(request.error?.status, 403);
      assert.equal(request.error?.code, 'INVALID_CALLBACKURL');
      await client.deleteUser({});
      const token = tokenInQuery(await mailedLink(email, subjects.deletion));
      const link = await fetch(
        `${api.url}/api/auth/delete-user/callback?token=${token}&callbackURL=https://evil.example/`,
      );
      assert.equal(link.status, 403);
      assert.ok((await client.getSession()).data, 'still signed in');
    });
  });
});

describe('requireEmailVerification', () => {
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let trustedOrigin: string;

  before(async () => {
    const config = loadRuntimeConfig();
    api = await startApiServer(
      { ...config, auth: { ...config.auth, requireEmailVerification: true } },
      { host: '127.0.0.1', port: 0 },
    );
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  it('signs up without a session, refuses sign-in until verified, and mails a link each time', async () => {
    const { client, cookies, fetch } = browserAuthClient(api.url, trustedOrigin);
    const email = uniqueEmail();
    const signUp = await client.signUp.email({ email, password, name: 'Careful' });
    assert.equal(signUp.data?.token, null);
    assert.equal(signUp.data?.user.email, email);
    assert.equal(cookies.header(), '');
    const firstLink = await mailedLink(email, subjects.verify);

    const refused = await client.signIn.email({ email, password, callbackURL: '/home' });
    assert.equal(refused.error?.status, 403);
    assert.equal(refused.error?.code, 'EMAIL_NOT_VERIFIED');
    const secondLink = await mailedLink(email, subjects.verify, [firstLink]);
    assert.equal(new URL(secondLink).searchParams.get('callbackURL'), '/home');

    const url = new URL(secondLink);
    const verified = await fetch(`${api.url}${url.pathname}${url.search}`);
    assert.equal(verified.headers.get('location'), '/home');
    // Verifying does not sign in (Better Auth's autoSignInAfterVerification is off by default).
    assert.equal((await client.getSession()).data, null);
    const signIn = await client.signIn.email({ email, password });
    assert.equal(signIn.error, null);
    assert.equal(signIn.data?.user.emailVerified, true);
  });
});

describe('with the session cookie cache on', () => {
  let api: Awaited<ReturnType<typeof startApiServer>>;

  before(async () => {
    const config = loadRuntimeConfig();
    api = await startApiServer(
      { ...config, auth: { ...config.auth, sessionCookieCache: true } },
      { host: '127.0.0.1', port: 0 },
    );
  });
  after(() => api.close());

  it('renews the cached session when the email changes', async () => {
    const { client, cookies } = browserAuthClient(
      api.url,
      new URL(api.config.api.publicUrl).origin,
    );
    await client.signUp.email({ email: uniqueEmail(), password, name: 'Cached' });
    await client.getSession();
    assert.ok(cookies.get('better-auth.session_data'), 'the session is cached in a cookie');
    const newEmail = uniqueEmail();
    await client.changeEmail({ newEmail });
    assert.equal((await client.getSession()).data?.user.email, newEmail);
  });
});
