import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tokenKinds } from '../../accounts/verification-tokens.ts';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from '../../config/env.ts';
import { User, Verification } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient } from './testing.ts';

type Api = Awaited<ReturnType<typeof startTestApi>>;

const password = 'correct horse battery';
const uniqueEmail = () => `lifetime-${randomBytes(6).toString('hex')}@example.com`;

/** Email verification and password reset tokens live these seconds in the short-lived API. */
const shortSeconds = 2;

/** A browser on `api`, signed up as a new user, and the tokens it is mailed. */
async function signedUp(api: Api) {
  const browser = browserAuthClient(api.url, new URL(api.config.api.publicUrl).origin);
  const email = uniqueEmail();
  const { error } = await browser.client.signUp.email({ email, password, name: 'Ada' });
  assert.equal(error, null);
  const mailedLink = async (subject: RegExp) => {
    const [link] = extractLinks(await waitForMail({ to: email, subject }));
    assert.ok(link);
    // Mailed links point at the public URL; the test's API listens elsewhere.
    const url = new URL(link);
    return new URL(`${api.url}${url.pathname}${url.search}`);
  };
  return { ...browser, email, mailedLink };
}

/** The stored row of a token: how long it was issued for, and when it runs out. */
async function issued(api: Api, prefix: string, token: string) {
  const row = await api.orm.em
    .fork()
    .findOneOrFail(Verification, { identifier: `${prefix}:${hashToken(token)}` });
  return {
    lifetimeMs: row.expiresAt.getTime() - row.createdAt.getTime(),
    expiresAt: row.expiresAt,
  };
}

const untilPast = (moment: Date) => sleep(Math.max(0, moment.getTime() - Date.now()) + 100);

describe('verification token lifetimes as configured (spec §9)', () => {
  let short: Api;
  before(async () => {
    short = await startTestApi(
      loadRuntimeConfig({
        ...process.env,
        TOLLGATE_EMAIL_VERIFICATION_TOKEN_TTL_SECONDS: String(shortSeconds),
        TOLLGATE_PASSWORD_RESET_TOKEN_TTL_SECONDS: String(shortSeconds),
      }),
    );
  });
  after(() => short.close());

  it('refuses a reset token past TOLLGATE_PASSWORD_RESET_TOKEN_TTL_SECONDS', async () => {
    const { client, fetch, email, mailedLink } = await signedUp(short);
    await client.requestPasswordReset({ email, redirectTo: '/reset' });
    const link = await mailedLink(/^Reset your password$/);
    const token = link.pathname.split('/').pop() ?? '';
    const { lifetimeMs, expiresAt } = await issued(short, tokenKinds.passwordReset.prefix, token);
    assert.ok(Math.abs(lifetimeMs - shortSeconds * 1000) < 1000, `lived ${lifetimeMs} ms`);

    await untilPast(expiresAt);
    const followed = await fetch(link);
    assert.equal(followed.status, 302);
    assert.match(followed.headers.get('location') ?? '', /\/reset\?error=INVALID_TOKEN$/);
    const reset = await client.resetPassword({ newPassword: 'a brand new passphrase', token });
    assert.equal(reset.error?.status, 400);
    assert.equal(reset.error?.code, 'INVALID_TOKEN');
    // The password stayed as it was.
    const signIn = await browserAuthClient(short.url).client.signIn.email({ email, password });
    assert.equal(signIn.error, null);
  });

  it('refuses a verification token past TOLLGATE_EMAIL_VERIFICATION_TOKEN_TTL_SECONDS', async () => {
    const { client, fetch, email, mailedLink } = await signedUp(short);
    await client.sendVerificationEmail({ email, callbackURL: '/welcome' });
    const link = await mailedLink(/^Verify your email address$/);
    const token = link.searchParams.get('token') ?? '';
    const { lifetimeMs, expiresAt } = await issued(
      short,
      tokenKinds.emailVerification.prefix,
      token,
    );
    assert.ok(Math.abs(lifetimeMs - shortSeconds * 1000) < 1000, `lived ${lifetimeMs} ms`);

    await untilPast(expiresAt);
    const followed = await fetch(link);
    assert.equal(followed.status, 302);
    assert.match(followed.headers.get('location') ?? '', /\/welcome\?error=token_expired$/);
    const user = await short.orm.em.fork().findOneOrFail(User, { email });
    assert.equal(user.emailVerified, false);
  });

  it('issues both for an hour when unset, as Better Auth does', async () => {
    const standard = await startTestApi();
    try {
      const { client, email, mailedLink } = await signedUp(standard);
      await client.sendVerificationEmail({ email });
      const verifyToken =
        (await mailedLink(/^Verify your email address$/)).searchParams.get('token') ?? '';
      await client.requestPasswordReset({ email });
      const resetToken =
        (await mailedLink(/^Reset your password$/)).pathname.split('/').pop() ?? '';
      for (const [prefix, token] of [
        [tokenKinds.emailVerification.prefix, verifyToken],
        [tokenKinds.passwordReset.prefix, resetToken],
      ] as const) {
        const { lifetimeMs } = await issued(standard, prefix, token);
        assert.ok(Math.abs(lifetimeMs - 3_600_000) < 1000, `${prefix} lived ${lifetimeMs} ms`);
      }
    } finally {
      await standard.close();
    }
  });

  it('stops start-up on a lifetime that is not a whole number of seconds, 1 or more', () => {
    for (const [variable, setting] of [
      ['TOLLGATE_EMAIL_VERIFICATION_TOKEN_TTL_SECONDS', 'emailVerificationSeconds'],
      ['TOLLGATE_PASSWORD_RESET_TOKEN_TTL_SECONDS', 'passwordResetSeconds'],
    ] as const) {
      assert.equal(loadConfig({ [variable]: '7200' }).auth.tokenLifetimes[setting], 7200);
      for (const bad of ['0', '-5', '1.5', 'an hour']) {
        assert.throws(
          () => loadConfig({ [variable]: bad }),
          (error: unknown) =>
            error instanceof ConfigurationError &&
            error.message ===
              `${variable} must be a whole number of seconds, 1 or more (got ${JSON.stringify(bad)})`,
        );
      }
    }
  });
});
