import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  rateLimitSettings,
  signInDelayMs,
  signInThrottleSettings,
} from '../../accounts/rate-limit-settings.ts';
import { authSettings } from '../../accounts/settings.ts';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from '../../config/env.ts';
import { Session, User } from '../../db/entities/index.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import { longestWindowSeconds, ruleFor, tooManyRequestsMessage } from './rate-limit.ts';
import { browserAuthClient } from './testing.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;

/** The counters of /api/auth's limits, apart from those of the public /v1 routes. */
const authCounters = "key not like 'v1.%'";

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

/**
 * A sign-in sent from `source`, another loopback address (every one of 127.0.0.0/8 reaches
 * the server on 127.0.0.1): to the API, a client at another IP.
 */
function signInFrom(api: Api, source: string, email: string, attempt = password) {
  const body = JSON.stringify({ email, password: attempt });
  const url = new URL(`${api.url}/api/auth/sign-in/email`);
  return new Promise<{ status: number; sessionToken: string | undefined }>((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: source,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => {
          const answer =
            response.statusCode === 200 ? (JSON.parse(text) as { token: string }) : null;
          resolve({ status: response.statusCode ?? 0, sessionToken: answer?.token });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

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
  const { rateLimit, signInThrottle } = authSettings(limitedConfig());
  const { rules } = rateLimit;
  /** Failed sign-ins one address may make against one account. */
  const failuresAllowed = signInThrottle.perAccountAndIp.max;
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
    assert.ok(failuresAllowed >= 2 && failuresAllowed + 3 <= signInPerIp);
  });
  after(() => Promise.all([open, limited, twin].map((api) => api.close())));
  // Every request here comes from 127.0.0.1: each test starts with no counters. The public
  // /v1 limits' counters (`v1.…`, commerce/http/rate-limits.test.ts) are another test's.
  beforeEach(() => counters().execute(`delete from rate_limits where ${authCounters}`, [], 'run'));

  it('refuses an address its sign-ins to an account after the allowed failures, with 429, Retry-After and X-Retry-After', async () => {
    const email = await newAccount();
    // Successful sign-ins do not count; failures do.
    for (let attempt = 1; attempt <= 2; attempt++) {
      assert.equal((await signIn(limited, email)).status, 200, `sign-in ${attempt}`);
    }
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      assert.equal((await signIn(limited, email, 'wrong password')).status, 401);
    }

    const blocked = await signIn(limited, email);
    assert.equal(blocked.status, 429);
    assert.deepEqual(await blocked.json(), { message: tooManyRequestsMessage });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.equal(blocked.headers.get('x-retry-after'), String(retryAfter));
    assert.ok(Number.isInteger(retryAfter), `Retry-After ${retryAfter}`);
    assert.ok(retryAfter >= 1 && retryAfter <= signInThrottle.perAccountAndIp.windowSeconds);
    // The failures' window is 15 minutes: a minute's wait would not be enough.
    assert.ok(retryAfter > rules.signIn.perIp.windowSeconds);
  });

  it("a stranger's wrong passwords do not lock the owner out, and the stranger gets no more guesses", async () => {
    const email = await newAccount();
    // The attack: guesses from several addresses, each until it is refused.
    const strangers = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
    for (const stranger of strangers) {
      for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
        const guess = await signInFrom(limited, stranger, email, `guess ${attempt}`);
        assert.equal(guess.status, 401);
      }
      assert.equal((await signInFrom(limited, stranger, email, 'one more guess')).status, 429);
    }
    const failures = strangers.length * failuresAllowed;
    // Past the free failures, the account is slowed down: never refused.
    assert.ok(signInDelayMs(failures, signInThrottle.perAccount) > 0);

    const owner = await signInFrom(limited, '127.0.0.5', email);
    assert.equal(owner.status, 200);
    assert.ok(owner.sessionToken);
    assert.equal((await signIn(limited, email)).status, 200, 'from the usual address too');

    // A stranger's address stays shut for this account, even with the right password.
    const right = await signInFrom(limited, strangers[0] ?? '', email);
    assert.equal(right.status, 429);
    assert.equal(right.sessionToken, undefined);
  });

  it('forgets the failures of an address once it signs in with the right password', async () => {
    const email = await newAccount();
    for (let round = 1; round <= 2; round++) {
      for (let attempt = 1; attempt < failuresAllowed; attempt++) {
        assert.equal((await signIn(limited, email, 'typo')).status, 401, `round ${round}`);
      }
      assert.equal((await signIn(limited, email)).status, 200, `round ${round}`);
    }
  });

  it('is surfaced by the Better Auth client as error.status 429', async () => {
    const email = await newAccount();
    const { client } = browserAuthClient(limited.url);
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
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
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      const spelling = attempt % 2 ? email : email.toUpperCase();
      assert.equal((await signIn(limited, spelling, 'wrong password')).status, 401);
    }
    assert.equal((await signIn(limited, email.toUpperCase())).status, 429);
    for (const path of ['/SIGN-IN/EMAIL', '/sign-in/email/']) {
      const response = await postJson(limited, path, { email, password });
      assert.equal(response.status, 429, path);
    }
  });

  it('lets other accounts from the same IP sign in until the per-IP limit', async () => {
    const [first, ...others] = await Promise.all(
      Array.from({ length: signInPerIp - failuresAllowed }, newAccount),
    );
    assert.ok(first);
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      assert.equal((await signIn(limited, first, 'wrong password')).status, 401);
    }
    assert.equal((await signIn(limited, first)).status, 429);
    // Every sign-in, the refused one too, counted against the address.
    const lastOther = others.pop();
    assert.ok(lastOther);
    for (const email of others) {
      assert.equal((await signIn(limited, email)).status, 200, email);
    }
    assert.equal((await signIn(limited, lastOther)).status, 200);

    const blocked = await signIn(limited, lastOther);
    assert.equal(blocked.status, 429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= rules.signIn.perIp.windowSeconds);
  });

  it('starts a new window once the window is over', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      assert.equal((await signIn(limited, email, 'wrong password')).status, 401);
    }
    assert.equal((await signIn(limited, email)).status, 429);

    // Fifteen minutes later, as far as the counters can tell.
    await counters().execute(
      `update rate_limits set window_started_at = window_started_at - make_interval(secs => ?)
       where ${authCounters}`,
      [signInThrottle.perAccountAndIp.windowSeconds],
      'run',
    );
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      const status = (await signIn(limited, email, 'wrong password')).status;
      assert.equal(status, 401, `attempt ${attempt} in new window`);
    }
    assert.equal((await signIn(limited, email)).status, 429);
  });

  it('shares the counters between API servers on one database', async () => {
    const email = await newAccount();
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      const api = attempt % 2 ? limited : twin;
      assert.equal((await signIn(api, email, 'wrong password')).status, 401, `attempt ${attempt}`);
    }
    assert.equal((await signIn(limited, email)).status, 429);
    assert.equal((await signIn(twin, email)).status, 429);
  });

  it('refuses before the password is checked: the right password gets no session', async () => {
    const email = await newAccount();
    const em = open.orm.em.fork();
    const user = await em.findOneOrFail(User, { email });
    const sessionsBefore = await em.count(Session, { user });
    for (let attempt = 1; attempt <= failuresAllowed; attempt++) {
      assert.equal((await signIn(limited, email, 'wrong password')).status, 401);
    }
    assert.equal((await signIn(limited, email)).status, 429);
    assert.equal(await em.count(Session, { user }), sessionsBefore);
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

  it('limits reading the configured social providers per IP, as sign-in pages do', async () => {
    const { max, windowSeconds } = rules.providerList.perIp;
    const readProviders = () => fetch(`${limited.url}/api/auth/providers`);
    for (let read = 1; read <= max; read++) {
      assert.equal((await readProviders()).status, 200, `read ${read}`);
    }
    const refused = await readProviders();
    assert.equal(refused.status, 429);
    assert.deepEqual(await refused.json(), { message: tooManyRequestsMessage });
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${retryAfter}`);
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
    for (let attempt = 1; attempt <= failuresAllowed + 1; attempt++) {
      assert.equal((await signIn(open, email, 'wrong password')).status, 401);
    }
    assert.equal((await signIn(open, email)).status, 200);
    const [row] = await counters().execute<{ count: string }[]>(
      `select count(*) from rate_limits where ${authCounters}`,
    );
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

  it('covers sign-in, sign-up, password reset, verification mail, account changes, restores and the provider list', () => {
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
      '/subscription/restore': 'subscriptionRestore',
      '/providers': 'providerList',
      '/Sign-In/Email/': 'signIn',
    };
    for (const [path, rule] of Object.entries(expected)) {
      assert.equal(ruleFor(production, path)?.[0], rule, path);
    }
    for (const path of ['/get-session', '/sign-out', '/sign-in', '/verify-email', '/ok']) {
      assert.equal(ruleFor(production, path), undefined, path);
    }
  });

  it('counts every sign-in per IP only, and account changes per session', () => {
    assert.equal('perAccount' in production.signIn, false, 'per account, only failures count');
    assert.deepEqual(production.signIn.perIp, { max: 30, windowSeconds: 60 });
    assert.equal(production.changePassword.perAccount.account, 'session');
    assert.equal(production.changeEmail.perAccount.account, 'session');
  });

  it('scales every maximum, never below one, and leaves the windows alone', () => {
    const doubled = rateLimitSettings({ enabled: true, scale: 2 }).rules;
    assert.equal(doubled.signUp.perAccount.max, 10);
    assert.equal(doubled.signIn.perIp.max, 60);
    assert.equal(doubled.signUp.perAccount.windowSeconds, 3600);
    const throttle = signInThrottleSettings({ enabled: true, scale: 2 });
    assert.deepEqual(throttle.perAccountAndIp, { max: 20, windowSeconds: 900 });
    const tiny = rateLimitSettings({ enabled: true, scale: 0.001 }).rules;
    assert.ok(Object.values(tiny).every((rule) => rule.perIp.max === 1));
  });

  it('slows an account down after five failures, doubling from 250 ms up to 8 s, never refusing', () => {
    const { perAccount } = signInThrottleSettings({ enabled: true, scale: 1 });
    const delays = [0, 4, 5, 6, 7, 9, 10, 1000].map((failures) =>
      signInDelayMs(failures, perAccount),
    );
    assert.deepEqual(delays, [0, 0, 250, 500, 1000, 4000, 8000, 8000]);
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
