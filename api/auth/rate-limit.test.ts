import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from '../../config/env.ts';
import { Session, User } from '../../db/entities/index.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import {
  longestWindowSeconds,
  rateLimitSettings,
  ruleFor,
  tooManyRequestsMessage,
} from './rate-limit.ts';
import { authSettings } from './settings.ts';
import { browserAuthClient } from './testing.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;

const uniqueEmail = () => `limited-${randomBytes(6).toString('hex')}@example.com`;
const password = 'correct horse battery';

const postJson = (api: Api, path: string, body: unknown) =>
  fetch(`${api.url}/api/auth${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const signIn = (api: Api, email: string, attempt = password) =>
  postJson(api, '/sign-in/email', { email, password: attempt });

describe('rate limits of /api/auth', () => {
  /** The test run's API: the test stack turns the limiter off (TOLLGATE_AUTH_RATE_LIMIT=off). */
  let open: Api;
  /** Two API servers with the limiter on, at a fifth of the production limits, on one database. */
  let limited: Api;
  let twin: Api;
  const limitedConfig = () => {
    const config = loadRuntimeConfig();
    return { ...config, auth: { ...config.auth, rateLimit: { enabled: true, scale: 0.2 } } };
  };
  const { rules } = authSettings(limitedConfig()).rateLimit;
  const signInPerAccount = rules.signIn.perAccount.max;
  const signInPerIp = rules.signIn.perIp.max;
  const listen = { host: '127.0.0.1', port: 0 };

  /** An account made through the unlimited API, so making it counts against no limit. */
  const newAccount = async () => {
    const email = uniqueEmail();
    const { error } = await browserAuthClient(open.url).client.signUp.email({
      email,
      password,
      name: 'Limited',
    });
    assert.equal(error, null);
    return email;
  };

  const counters = () => open.orm.em.getConnection();

  before(async () => {
    [open, limited, twin] = await Promise.all([
      startTestApi(),
      startApiServer(limitedConfig(), listen),
      startApiServer(limitedConfig(), listen),
    ]);
    // What the tests below rely on: an account's limit is reached before its address's.
    assert.ok(signInPerAccount >= 2 && signInPerAccount + 3 <= signInPerIp);
  });
  after(() => Promise.all([open, limited, twin].map((api) => api.close())));
  // Every request here comes from 127.0.0.1: each test starts with no counters.
  beforeEach(() => counters().execute('delete from rate_limits', [], 'run'));

  it('answers the sign-in after the allowed ones with 429, Retry-After and X-Retry-After', async () => {
    const email = await newAccount();
    // Failed attempts count as much as successful ones.
    assert.equal((await signIn(limited, email, 'wrong password')).status, 401);
    for (let attempt = 2; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200, `attempt ${attempt}`);
    }

    const blocked = await signIn(limited, email);
    assert.equal(blocked.status, 429);
    assert.deepEqual(await blocked.json(), { message: tooManyRequestsMessage });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.equal(blocked.headers.get('x-retry-after'), String(retryAfter));
    assert.ok(Number.isInteger(retryAfter), `Retry-After ${retryAfter}`);
    assert.ok(retryAfter >= 1 && retryAfter <= rules.signIn.perAccount.windowSeconds);
    // The account's window is 15 minutes: a minute's wait would not be enough.
    assert.ok(retryAfter > rules.signIn.perIp.windowSeconds);
  });

  it('is surfaced by the Better Auth client as error.status 429', async () => {
    const email = await newAccount();
    const { client } = browserAuthClient(limited.url);
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      const { error } = await client.signIn.email({ email, password: 'wrong password' });
      assert.equal(error?.status, 401);
    }
    const { data, error } = await client.signIn.email({ email, password });
    assert.equal(data, null);
    assert.equal(error?.status, 429);
    assert.equal(error?.statusText, 'Too Many Requests');
    assert.equal(error?.message, tooManyRequestsMessage);
  });

  it('counts an email in any letter case, and any spelling of the path, as one', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200);
    }
    assert.equal((await signIn(limited, email.toUpperCase())).status, 429);
    for (const path of ['/SIGN-IN/EMAIL', '/sign-in/email/']) {
      const response = await postJson(limited, path, { email, password });
      assert.equal(response.status, 429, path);
    }
  });

  it('lets other accounts from the same IP sign in until the per-IP limit', async () => {
    const [first, ...others] = await Promise.all(
      Array.from({ length: signInPerIp - signInPerAccount + 1 }, newAccount),
    );
    assert.ok(first);
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, first)).status, 200);
    }
    assert.equal((await signIn(limited, first)).status, 429);
    // The blocked request counted against the address too: one fewer remains.
    const lastOther = others.pop();
    assert.ok(lastOther);
    for (const email of others) {
      assert.equal((await signIn(limited, email)).status, 200, email);
    }

    const blocked = await signIn(limited, lastOther);
    assert.equal(blocked.status, 429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= rules.signIn.perIp.windowSeconds);
  });

  it('starts a new window once the window is over', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200);
    }
    assert.equal((await signIn(limited, email)).status, 429);

    // Fifteen minutes later, as far as the counters can tell.
    await counters().execute(
      'update rate_limits set window_started_at = window_started_at - make_interval(secs => ?)',
      [rules.signIn.perAccount.windowSeconds],
      'run',
    );
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200, `attempt ${attempt} in new window`);
    }
    assert.equal((await signIn(limited, email)).status, 429);
  });

  it('shares the counters between API servers on one database', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      const api = attempt % 2 ? limited : twin;
      assert.equal((await signIn(api, email)).status, 200, `attempt ${attempt}`);
    }
    assert.equal((await signIn(limited, email)).status, 429);
    assert.equal((await signIn(twin, email)).status, 429);
  });

  it('blocks before the route runs: the right password gets no session', async () => {
    const email = await newAccount();
    const em = open.orm.em.fork();
    const user = await em.findOneOrFail(User, { email });
    const sessionsBefore = await em.count(Session, { user });
    for (let attempt = 1; attempt <= signInPerAccount; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200, `attempt ${attempt}`);
    }
    assert.equal((await signIn(limited, email)).status, 429);
    // Each allowed sign-in made a session; the blocked one, with the same password, did not.
    assert.equal(await em.count(Session, { user }), sessionsBefore + signInPerAccount);
  });

  it('limits sign-up per email and per IP, before anything is written', async () => {
    const perEmail = rules.signUp.perAccount.max;
    const perIp = rules.signUp.perIp.max;
    assert.ok(perEmail < perIp);
    const signUp = (email: string) =>
      postJson(limited, '/sign-up/email', { email, password, name: 'Limited' });

    const email = uniqueEmail();
    assert.equal((await signUp(email)).status, 200);
    // Not 422 "already exists" past the limit: the route is not reached.
    for (let attempt = 2; attempt <= perEmail; attempt++) {
      assert.equal((await signUp(email)).status, 422);
    }
    assert.equal((await signUp(email.toUpperCase())).status, 429);

    for (let attempt = perEmail + 2; attempt <= perIp; attempt++) {
      assert.equal((await signUp(uniqueEmail())).status, 200, `sign-up ${attempt} from this IP`);
    }
    const refused = uniqueEmail();
    assert.equal((await signUp(refused)).status, 429);
    assert.equal(await open.orm.em.fork().count(User, { email: refused }), 0);
  });

  it('limits verification mail per email and change-password per session', async () => {
    assert.equal(rules.verificationMail.perAccount.max, 1);
    const email = uniqueEmail();
    const mailRequest = { email, callbackURL: '/verified' };
    assert.equal((await postJson(limited, '/send-verification-email', mailRequest)).status, 200);
    const again = { ...mailRequest, email: email.toUpperCase() };
    assert.equal((await postJson(limited, '/send-verification-email', again)).status, 429);

    assert.equal(rules.changePassword.perAccount.max, 1);
    const account = await newAccount();
    const sessionToken = async () => {
      const response = await signIn(open, account);
      return ((await response.json()) as { token: string }).token;
    };
    const [first, second] = [await sessionToken(), await sessionToken()];
    const changePassword = (token: string) =>
      fetch(`${limited.url}/api/auth/change-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ currentPassword: 'wrong password', newPassword: 'new password 1' }),
      });
    assert.equal((await changePassword(first)).status, 400);
    assert.equal((await changePassword(first)).status, 429);
    // Another session keeps its own allowance (until the address's limit).
    assert.equal((await changePassword(second)).status, 400);
  });

  it('counts nothing when turned off', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= signInPerAccount + 1; attempt++) {
      assert.equal((await signIn(open, email)).status, 200);
    }
    const [row] = await counters().execute<{ count: string }[]>('select count(*) from rate_limits');
    assert.equal(Number(row?.count), 0);
  });

  it('deletes the counters of windows long over', async () => {
    const longestWindow = longestWindowSeconds(rules);
    await counters().execute(
      `insert into rate_limits (key, count, window_started_at) values
        ('test:ended', 3, now() - make_interval(secs => ?)),
        ('test:current', 3, now() - make_interval(secs => ?))`,
      [longestWindow + 1, longestWindow - 60],
      'run',
    );
    // A newly started server cleans up on its first limited request, off the request's path.
    const fresh = await startApiServer(limitedConfig(), listen);
    try {
      assert.equal((await signIn(fresh, uniqueEmail())).status, 401);
      const keys = async () => {
        const rows = await counters().execute<{ key: string }[]>(
          "select key from rate_limits where key like 'test:%' order by key",
        );
        return rows.map(({ key }) => key);
      };
      for (let wait = 0; wait < 50 && (await keys()).includes('test:ended'); wait++) {
        await sleep(100);
      }
      assert.deepEqual(await keys(), ['test:current']);
    } finally {
      await fresh.close();
    }
  });
});

describe('rate limit rules', () => {
  const production = rateLimitSettings({ enabled: true, scale: 1 }).rules;

  it('covers sign-in, sign-up, password reset, verification mail and account changes', () => {
    const expected = {
      '/sign-in/email': 'signIn',
      '/sign-in/social': 'signIn',
      '/sign-up/email': 'signUp',
      '/request-password-reset': 'passwordResetMail',
      '/forget-password': 'passwordResetMail',
      '/reset-password': 'passwordReset',
      '/reset-password/some-token': 'passwordReset',
      '/send-verification-email': 'verificationMail',
      '/change-password': 'changePassword',
      '/change-email': 'changeEmail',
      '/Sign-In/Email/': 'signIn',
    };
    for (const [path, rule] of Object.entries(expected)) {
      assert.equal(ruleFor(production, path)?.[0], rule, path);
    }
    for (const path of ['/get-session', '/sign-out', '/sign-in', '/verify-email', '/ok']) {
      assert.equal(ruleFor(production, path), undefined, path);
    }
  });

  it('counts sign-ins per account by email and account changes per session', () => {
    assert.deepEqual(production.signIn.perAccount, {
      account: 'email',
      max: 10,
      windowSeconds: 900,
    });
    assert.deepEqual(production.signIn.perIp, { max: 30, windowSeconds: 60 });
    assert.equal(production.changePassword.perAccount.account, 'session');
    assert.equal(production.changeEmail.perAccount.account, 'session');
  });

  it('scales every maximum, never below one, and leaves the windows alone', () => {
    const doubled = rateLimitSettings({ enabled: true, scale: 2 }).rules;
    assert.equal(doubled.signIn.perAccount.max, 20);
    assert.equal(doubled.signIn.perIp.max, 60);
    assert.equal(doubled.signIn.perAccount.windowSeconds, 900);
    const tiny = rateLimitSettings({ enabled: true, scale: 0.001 }).rules;
    assert.ok(Object.values(tiny).every((rule) => rule.perIp.max === 1));
  });

  it('reads TOLLGATE_AUTH_RATE_LIMIT: on by default, off, or a factor', () => {
    assert.deepEqual(loadConfig({}).auth.rateLimit, { enabled: true, scale: 1 });
    assert.deepEqual(loadConfig({ TOLLGATE_AUTH_RATE_LIMIT: 'on' }).auth.rateLimit, {
      enabled: true,
      scale: 1,
    });
    assert.equal(loadConfig({ TOLLGATE_AUTH_RATE_LIMIT: 'off' }).auth.rateLimit.enabled, false);
    assert.deepEqual(loadConfig({ TOLLGATE_AUTH_RATE_LIMIT: '2.5' }).auth.rateLimit, {
      enabled: true,
      scale: 2.5,
    });
    for (const bad of ['yes', '0', '-1', '2x']) {
      assert.throws(
        () => loadConfig({ TOLLGATE_AUTH_RATE_LIMIT: bad }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /^TOLLGATE_AUTH_RATE_LIMIT must be on, off, or a factor/.test(error.message),
        bad,
      );
    }
  });
});
