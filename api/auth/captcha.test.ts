import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  type CaptchaProvider,
  ConfigurationError,
  captchaProviders,
  loadConfig,
  loadRuntimeConfig,
} from '../../config/env.ts';
import { User } from '../../db/entities/index.ts';
import {
  type CaptchaVerifierFake,
  startCaptchaVerifierFake,
} from '../../devstack/captcha-verifier.ts';
import { captchaHeader } from '../middleware/captcha.ts';
import { startTestApi } from '../testing.ts';
import { browserAuthClient } from './testing.ts';

type Api = Awaited<ReturnType<typeof startTestApi>>;

const password = 'correct horse battery';
const uniqueEmail = () => `captcha-${randomBytes(6).toString('hex')}@example.com`;

/** The test run's API, configured as an operator would to check captchas with `fake`. */
const apiCheckingWith = (
  fake: Pick<CaptchaVerifierFake, 'provider' | 'secret' | 'url'>,
  more = {},
) =>
  startTestApi(
    loadRuntimeConfig({
      ...process.env,
      TOLLGATE_CAPTCHA_PROVIDER: fake.provider,
      TOLLGATE_CAPTCHA_SECRET_KEY: fake.secret,
      TOLLGATE_CAPTCHA_VERIFY_URL: fake.url,
      ...more,
    }),
  );

/** fetchOptions that send a widget's token, as an app using Better Auth's captcha plugin does. */
const solved = (token: string) => ({ headers: { [captchaHeader]: token } });

/** What the Better Auth client reports for each of its captcha plugin's refusals. */
const refusals = {
  missing: { status: 400, message: 'Missing CAPTCHA response' },
  failed: { status: 403, message: 'Captcha verification failed' },
  unavailable: { status: 500, message: 'Something went wrong' },
};
const refusedAs = (refusal: keyof typeof refusals) => refusals[refusal];

const errorOf = (answer: { error: { status: number; message?: string } | null }) =>
  answer.error && { status: answer.error.status, message: answer.error.message };

for (const provider of captchaProviders) {
  describe(`captcha on sign-up, sign-in and password reset with ${provider}`, () => {
    let fake: CaptchaVerifierFake;
    let api: Api;
    const browser = () => browserAuthClient(api.url, new URL(api.config.api.publicUrl).origin);
    const userExists = async (email: string) =>
      (await api.orm.em.fork().count(User, { email })) === 1;

    /** A user signed up with a solved captcha. */
    async function signedUp() {
      const email = uniqueEmail();
      const answer = await browser().client.signUp.email({
        email,
        password,
        name: 'Captcha',
        fetchOptions: solved(fake.solve()),
      });
      assert.equal(answer.error, null);
      return email;
    }

    before(async () => {
      fake = await startCaptchaVerifierFake(provider);
      api = await apiCheckingWith(fake);
    });
    after(async () => {
      await api.close();
      await fake.stop();
    });

    it('lets each call through with a solved captcha, verified for the client address', async () => {
      const { client } = browser();
      const email = uniqueEmail();
      const callsBefore = fake.calls.length;
      const token = fake.solve();
      const signUp = await client.signUp.email({
        email,
        password,
        name: 'Captcha',
        fetchOptions: solved(token),
      });
      assert.equal(signUp.error, null);
      assert.equal(signUp.data?.user.email, email);
      assert.deepEqual(fake.calls.at(-1), {
        contentType: 'application/x-www-form-urlencoded',
        secret: fake.secret,
        response: token,
        remoteip: '127.0.0.1',
      });

      const signIn = await browser().client.signIn.email({
        email,
        password,
        fetchOptions: solved(fake.solve()),
      });
      assert.equal(signIn.error, null);
      assert.ok(signIn.data?.token);

      const forget = await browser().client.forgetPassword({
        email,
        fetchOptions: solved(fake.solve()),
      });
      assert.deepEqual(forget.data, { status: true });
      const request = await browser().client.requestPasswordReset({
        email,
        fetchOptions: solved(fake.solve()),
      });
      assert.equal(request.error, null);
      // One siteverify call each, every one with the site's secret.
      assert.equal(fake.calls.length, callsBefore + 4);
      assert.ok(fake.calls.slice(callsBefore).every((call) => call.secret === fake.secret));
    });

    it('refuses each call without a captcha with 400, before doing anything', async () => {
      const email = uniqueEmail();
      const { client } = browser();
      const callsBefore = fake.calls.length;
      const signUp = await client.signUp.email({ email, password, name: 'No captcha' });
      assert.deepEqual(errorOf(signUp), refusedAs('missing'));
      assert.equal(await userExists(email), false);

      const known = await signedUp();
      const afterSignUp = fake.calls.length;
      assert.deepEqual(
        errorOf(await client.signIn.email({ email: known, password })),
        refusedAs('missing'),
      );
      assert.deepEqual(
        errorOf(await client.forgetPassword({ email: known })),
        refusedAs('missing'),
      );
      assert.deepEqual(
        errorOf(await client.requestPasswordReset({ email: known })),
        refusedAs('missing'),
      );
      // An empty header is no token either; the verifier is never asked.
      const empty = await client.signIn.email({ email: known, password, fetchOptions: solved('') });
      assert.deepEqual(errorOf(empty), refusedAs('missing'));
      assert.equal(fake.calls.length, afterSignUp);
      assert.equal(afterSignUp, callsBefore + 1);
    });

    it('refuses a token the provider does not pass with 403: unknown, or already used', async () => {
      const { client } = browser();
      const email = uniqueEmail();
      const forged = await client.signUp.email({
        email,
        password,
        name: 'Bot',
        fetchOptions: solved(`${provider}.forged`),
      });
      assert.deepEqual(errorOf(forged), refusedAs('failed'));
      assert.equal(await userExists(email), false);

      const known = await signedUp();
      const token = fake.solve();
      const first = await client.signIn.email({
        email: known,
        password,
        fetchOptions: solved(token),
      });
      assert.equal(first.error, null);
      const replayed = await browser().client.signIn.email({
        email: known,
        password,
        fetchOptions: solved(token),
      });
      assert.deepEqual(errorOf(replayed), refusedAs('failed'));
      const reset = await client.forgetPassword({ email: known, fetchOptions: solved(token) });
      assert.deepEqual(errorOf(reset), refusedAs('failed'));
    });

    it("answers Better Auth's bodies: {message} alone, on any spelling of the path", async () => {
      const post = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${api.url}/api/auth${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ email: uniqueEmail(), password }),
        });
      for (const path of ['/sign-in/email', '/SIGN-IN/Email/', '/Forget-Password']) {
        const missing = await post(path);
        assert.equal(missing.status, 400, path);
        assert.deepEqual(await missing.json(), { message: 'Missing CAPTCHA response' });
      }
      const failed = await post('/sign-in/email', { [captchaHeader]: 'not-a-token' });
      assert.equal(failed.status, 403);
      assert.deepEqual(await failed.json(), { message: 'Captcha verification failed' });
    });

    it('leaves the other routes alone', async () => {
      const email = await signedUp();
      const { client } = browser();
      const signIn = await client.signIn.email({
        email,
        password,
        fetchOptions: solved(fake.solve()),
      });
      assert.equal(signIn.error, null);
      const callsBefore = fake.calls.length;
      const session = await client.getSession();
      assert.equal(session.data?.user.email, email);
      const reset = await client.resetPassword({ newPassword: 'another password', token: 'nope' });
      assert.equal(reset.error?.status, 400);
      assert.equal((await client.signOut()).error, null);
      assert.equal(fake.calls.length, callsBefore);
    });

    it('answers 500 "Something went wrong" while the verifier cannot be reached', async () => {
      const gone = await startCaptchaVerifierFake(provider);
      await gone.stop();
      const unreachable = await apiCheckingWith(gone);
      try {
        const email = uniqueEmail();
        const client = browserAuthClient(
          unreachable.url,
          new URL(unreachable.config.api.publicUrl).origin,
        ).client;
        const signUp = await client.signUp.email({
          email,
          password,
          name: 'Unlucky',
          fetchOptions: solved(gone.solve()),
        });
        assert.deepEqual(errorOf(signUp), refusedAs('unavailable'));
        assert.equal(await userExists(email), false);
      } finally {
        await unreachable.close();
      }
    });
  });
}

describe('reCAPTCHA v3 scores', () => {
  let fake: CaptchaVerifierFake;
  let api: Api;
  before(async () => {
    fake = await startCaptchaVerifierFake('recaptcha');
    api = await apiCheckingWith(fake, { TOLLGATE_CAPTCHA_MIN_SCORE: '0.7' });
  });
  after(async () => {
    await api.close();
    await fake.stop();
  });

  it('passes a score at or above TOLLGATE_CAPTCHA_MIN_SCORE and refuses one below', async () => {
    const { client } = browserAuthClient(api.url, new URL(api.config.api.publicUrl).origin);
    const signUp = (score: number) =>
      client.signUp.email({
        email: uniqueEmail(),
        password,
        name: `Score ${score}`,
        fetchOptions: solved(fake.solve({ score })),
      });
    assert.deepEqual(errorOf(await signUp(0.6)), refusedAs('failed'));
    assert.equal((await signUp(0.7)).error, null);
    assert.equal((await signUp(0.9)).error, null);
  });

  it('defaults to 0.5, as Better Auth does', () => {
    const env = { TOLLGATE_CAPTCHA_PROVIDER: 'recaptcha', TOLLGATE_CAPTCHA_SECRET_KEY: 'secret' };
    assert.equal(loadConfig(env).auth.captcha?.minScore, 0.5);
  });
});

describe('captcha configuration', () => {
  const captchaOf = (env: Record<string, string>) => loadConfig(env).auth.captcha;
  const refused = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, message);
        return true;
      },
    );

  it('is off unless a provider is set', () => {
    assert.equal(captchaOf({}), undefined);
  });

  it('takes each provider with its secret, and an optional verifier URL', () => {
    for (const provider of ['turnstile', 'recaptcha', 'hcaptcha'] satisfies CaptchaProvider[]) {
      assert.deepEqual(
        captchaOf({ TOLLGATE_CAPTCHA_PROVIDER: provider, TOLLGATE_CAPTCHA_SECRET_KEY: 's3cret' }),
        { provider, secretKey: 's3cret', verifyUrl: undefined, minScore: 0.5 },
      );
    }
    assert.equal(
      captchaOf({
        TOLLGATE_CAPTCHA_PROVIDER: 'hcaptcha',
        TOLLGATE_CAPTCHA_SECRET_KEY: 's3cret',
        TOLLGATE_CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify',
      })?.verifyUrl,
      'http://127.0.0.1:9/siteverify',
    );
  });

  it('stops start-up on a bad or half setting, naming the variable', () => {
    refused(
      { TOLLGATE_CAPTCHA_PROVIDER: 'captchafox', TOLLGATE_CAPTCHA_SECRET_KEY: 's' },
      /^TOLLGATE_CAPTCHA_PROVIDER must be turnstile, recaptcha or hcaptcha/,
    );
    refused({ TOLLGATE_CAPTCHA_PROVIDER: 'turnstile' }, /^TOLLGATE_CAPTCHA_SECRET_KEY must be set/);
    refused(
      { TOLLGATE_CAPTCHA_SECRET_KEY: 'hidden-value' },
      /^TOLLGATE_CAPTCHA_PROVIDER must be set/,
    );
    refused(
      {
        TOLLGATE_CAPTCHA_PROVIDER: 'recaptcha',
        TOLLGATE_CAPTCHA_SECRET_KEY: 's',
        TOLLGATE_CAPTCHA_MIN_SCORE: '1.5',
      },
      /^TOLLGATE_CAPTCHA_MIN_SCORE must be a score between 0 and 1/,
    );
    refused(
      {
        TOLLGATE_CAPTCHA_PROVIDER: 'turnstile',
        TOLLGATE_CAPTCHA_SECRET_KEY: 'hidden-value',
        TOLLGATE_CAPTCHA_VERIFY_URL: 'nope',
      },
      /^TOLLGATE_CAPTCHA_VERIFY_URL must be an http\(s\) URL/,
    );
  });
});
