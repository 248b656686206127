import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { stateIdentifier } from '../../accounts/social/oauth-flows.ts';
import { configuredProviders } from '../../accounts/social/providers.ts';
import { createAccessToken } from '../../commerce/access-tokens/service.ts';
import { loadConfig, loadRuntimeConfig, type RuntimeConfig } from '../../config/env.ts';
import {
  Account,
  Member,
  Organization,
  OrganizationAccessToken,
  Session,
  User,
  Verification,
} from '../../db/entities/index.ts';
import {
  addLocalProviderUser,
  type LocalProviderId,
  type LocalProviderUser,
  localGoogleIdToken,
} from '../../devstack/oauth-provider.ts';
import { findFreePort } from '../../devstack/supervisor.ts';
import { startApiServer } from '../server.ts';
import { browserAuthClient } from './testing.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;
type Browser = ReturnType<typeof browserAuthClient>;

const providers = ['github', 'google', 'discord'] as const;
const password = 'correct horse battery';
const uniqueEmail = () => `social-${randomBytes(6).toString('hex')}@example.com`;

/** The local provider `npm test` runs in place of the real one (devstack/oauth-provider.ts). */
function providerBaseUrl(provider: LocalProviderId): string {
  const url = process.env[`TOLLGATE_OAUTH_${provider.toUpperCase()}_BASE_URL`];
  assert.ok(url, `the test stack runs a local ${provider}`);
  return url;
}

/** An account at the local provider: verified email and a fresh id unless told otherwise. */
async function providerAccount(
  provider: LocalProviderId,
  overrides: Partial<LocalProviderUser> = {},
): Promise<LocalProviderUser> {
  const account = {
    // Digits, as GitHub's and Discord's ids are; below 2^53, as GitHub's numbers are.
    id: String(randomInt(1e9, 2 ** 47)),
    email: uniqueEmail(),
    emailVerified: true,
    name: 'Ada Lovelace',
    ...overrides,
  };
  await addLocalProviderUser(providerBaseUrl(provider), account);
  return account;
}

/**
 * The real API, listening on the address its public URL names: the provider sends the browser
 * back to <public URL>/api/auth/callback/<id>, and that must be this server.
 */
async function startApi(social: Partial<RuntimeConfig['auth']['social']> = {}): Promise<Api> {
  const port = await findFreePort();
  const config = loadRuntimeConfig();
  return startApiServer(
    {
      ...config,
      api: { ...config.api, publicUrl: `http://127.0.0.1:${port}` },
      auth: { ...config.auth, social: { ...config.auth.social, ...social } },
    },
    { host: '127.0.0.1', port },
  );
}

/**
 * The browser's trip to the provider and back: open the authorization URL, where the person
 * signs in as `login`, follow the provider's redirect to our callback, and answer where the
 * callback sends the browser next.
 */
async function throughProvider(browser: Browser, url: string, login: string): Promise<string> {
  const authorize = new URL(url);
  authorize.searchParams.set('login_hint', login);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  assert.equal(atProvider.status, 302);
  const back = await browser.fetch(atProvider.headers.get('location') ?? '');
  assert.equal(back.status, 302);
  return back.headers.get('location') ?? '';
}

/** The provider URL of a sign-in or link answer. */
function providerUrl(data: { url?: string } | null | undefined): string {
  assert.ok(data?.url, 'an authorization URL');
  return data.url;
}

describe('social sign-in through the Better Auth client', () => {
  let api: Api;
  let browser: () => Browser;
  let authBase: string;

  before(async () => {
    api = await startApi();
    browser = () => browserAuthClient(api.url);
    authBase = `${api.url}/api/auth`;
  });
  after(() => api.close());

  /** Signs in (or up) through `provider` as `account`; answers the browser and where it landed. */
  async function signInWith(
    provider: LocalProviderId,
    account: LocalProviderUser,
    options: { callbackURL?: string; newUserCallbackURL?: string; errorCallbackURL?: string } = {},
  ) {
    const visitor = browser();
    const { data, error } = await visitor.client.signIn.social({
      provider,
      callbackURL: '/dashboard',
      newUserCallbackURL: '/welcome',
      ...options,
    });
    assert.equal(error, null);
    const landing = await throughProvider(visitor, providerUrl(data), account.id);
    return { visitor, landing };
  }

  /** The browser's own user, read back through get-session. */
  async function sessionUser(visitor: Browser) {
    const { data } = await visitor.client.getSession();
    assert.ok(data, 'signed in');
    return data.user;
  }

  it('signs up through GitHub, Google and Discord, each with PKCE and a state', async () => {
    for (const provider of providers) {
      const account = await providerAccount(provider, { name: `${provider} person` });
      const visitor = browser();
      const { data } = await visitor.client.signIn.social({
        provider,
        callbackURL: '/dashboard',
        newUserCallbackURL: '/welcome',
      });
      assert.equal(data?.redirect, true);
      const url = new URL(providerUrl(data));
      assert.equal(url.origin, providerBaseUrl(provider), provider);
      assert.equal(url.searchParams.get('client_id'), `tollgate-local-${provider}`);
      assert.equal(url.searchParams.get('redirect_uri'), `${authBase}/callback/${provider}`);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.match(url.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
      assert.match(url.searchParams.get('state') ?? '', /^[\w-]{43}$/);
      // The state cookie ties the flow to this browser.
      assert.ok(visitor.cookies.get('better-auth.state'));

      const landing = await throughProvider(visitor, url.toString(), account.id);
      assert.equal(landing, '/welcome', provider);
      assert.equal(visitor.cookies.get('better-auth.state'), undefined);
      const user = await sessionUser(visitor);
      assert.equal(user.email, account.email);
      assert.equal(user.name, `${provider} person`);
      assert.equal(user.emailVerified, true);

      const { data: accounts } = await visitor.client.listAccounts();
      assert.equal(accounts?.length, 1);
      assert.equal(accounts?.[0]?.providerId, provider);
      assert.equal(accounts?.[0]?.accountId, account.id);
      assert.ok(accounts?.[0]?.createdAt instanceof Date);
    }
    const { data } = await browser().client.signIn.social({ provider: 'github' });
    assert.deepEqual(new URL(providerUrl(data)).searchParams.get('scope'), 'read:user user:email');
  });

  it('records the granted scopes and passes login hints and extra scopes on', async () => {
    const account = await providerAccount('discord');
    const visitor = browser();
    const { data } = await visitor.client.signIn.social({
      provider: 'discord',
      scopes: ['guilds'],
    });
    const url = new URL(providerUrl(data));
    assert.equal(url.searchParams.get('scope'), 'identify email guilds');
    await throughProvider(visitor, url.toString(), account.id);
    const { data: accounts } = await visitor.client.listAccounts();
    assert.deepEqual(accounts?.[0]?.scopes, ['identify', 'email', 'guilds']);

    const google = await browser().client.signIn.social({
      provider: 'google',
      loginHint: 'ada@example.com',
      disableRedirect: true,
    });
    assert.equal(google.data?.redirect, false);
    const googleUrl = new URL(providerUrl(google.data));
    assert.equal(googleUrl.searchParams.get('login_hint'), 'ada@example.com');
    assert.equal(googleUrl.searchParams.get('scope'), 'email profile openid');
  });

  it('signs the same person in again to the same user, not a new one', async () => {
    const account = await providerAccount('github');
    const first = await signInWith('github', account);
    assert.equal(first.landing, '/welcome');
    const again = await signInWith('github', account);
    assert.equal(again.landing, '/dashboard');
    const firstUser = await sessionUser(first.visitor);
    const secondUser = await sessionUser(again.visitor);
    assert.equal(secondUser.id, firstUser.id);
    const rows = await api.orm.em.fork().find(Account, { user: firstUser.id });
    assert.equal(rows.length, 1);
  });

  it('keeps provider tokens encrypted and states hashed at rest', async () => {
    const account = await providerAccount('google');
    const visitor = browser();
    const { data } = await visitor.client.signIn.social({ provider: 'google' });
    const url = providerUrl(data);
    const state = new URL(url).searchParams.get('state') ?? '';
    const em = api.orm.em.fork();
    const pending = await em.find(Verification, { identifier: stateIdentifier(state) });
    assert.equal(pending.length, 1);
    assert.ok(!JSON.stringify(pending).includes(state));

    await throughProvider(visitor, url, account.id);
    const tokens = await visitor.client.getAccessToken({ providerId: 'google' });
    const accessToken = tokens.data?.accessToken ?? '';
    const idToken = tokens.data?.idToken ?? '';
    assert.ok(accessToken.length > 20 && idToken.length > 20);
    const user = await sessionUser(visitor);
    const [row] = await em.find(Account, { user: user.id });
    assert.ok(row?.accessToken && row.refreshToken && row.idToken);
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(accessToken) && !stored.includes(idToken));
  });

  it('links to an existing email user when the provider verified the email, and ends what the unproven user held', async () => {
    // The attack (account pre-hijacking): someone signs up with the victim's address and a
    // password of theirs, stays signed in, keeps an API key, and waits for the victim to sign in
    // through a provider that proves the address.
    const email = uniqueEmail();
    const attacker = browser();
    const signUp = await attacker.client.signUp.email({ email, password, name: 'Grace' });
    assert.equal(signUp.data?.user.emailVerified, false);
    const apiKey = await attacker.client.apiKey.create({ name: 'kept' });
    assert.ok(apiKey.data?.key);
    // ...and an organization access token minted for a shop of theirs.
    const em = api.orm.em.fork();
    const shop = em.create(Organization, { name: 'Shop', slug: `shop-${randomInt(1e9)}` });
    em.create(Member, { organization: shop, user: signUp.data?.user.id as string, role: 'owner' });
    await em.flush();
    await createAccessToken(em, {
      organizationId: shop.id,
      comment: 'kept',
      scopes: ['products:read'],
      createdByUserId: signUp.data?.user.id,
    });
    const account = await providerAccount('github', { email: email.toUpperCase() });

    const { visitor, landing } = await signInWith('github', account);
    assert.equal(landing, '/dashboard');
    const user = await sessionUser(visitor);
    assert.equal(user.id, signUp.data?.user.id);
    assert.equal(user.emailVerified, true, 'the provider vouched for the email');
    const { data: accounts } = await visitor.client.listAccounts();
    assert.deepEqual(
      accounts?.map((entry) => entry.providerId),
      ['github'],
    );

    // Nothing of the attacker's works any more: not the session, the password or the key.
    assert.equal((await attacker.client.getSession()).data, null);
    const again = await browser().client.signIn.email({ email, password });
    assert.equal(again.error?.code, 'INVALID_EMAIL_OR_PASSWORD');
    const withKey = await browser().client.getSession({
      fetchOptions: { headers: { 'x-api-key': apiKey.data.key } },
    });
    assert.equal(withKey.error?.status, 401);
    assert.equal(withKey.error?.code, 'INVALID_API_KEY');
    const sessions = await api.orm.em.fork().count(Session, { user: user.id });
    assert.equal(sessions, 1, "only the provider sign-in's session");
    const tokens = await api.orm.em
      .fork()
      .count(OrganizationAccessToken, { organization: shop.id });
    assert.equal(tokens, 0, "the attacker's organization access token is revoked");
  });

  it('keeps the password and sessions of a user who had proven the address', async () => {
    const email = uniqueEmail();
    const owner = browser();
    const signUp = await owner.client.signUp.email({ email, password, name: 'Grace' });
    await api.orm.em
      .fork()
      .nativeUpdate(User, { id: signUp.data?.user.id }, { emailVerified: true });
    const account = await providerAccount('github', { email });
    const { visitor } = await signInWith('github', account);
    assert.equal((await sessionUser(visitor)).id, signUp.data?.user.id);
    assert.equal((await owner.client.getSession()).data?.user.id, signUp.data?.user.id);
    const { data: accounts } = await visitor.client.listAccounts();
    assert.deepEqual(accounts?.map((entry) => entry.providerId).sort(), ['credential', 'github']);
    assert.equal((await browser().client.signIn.email({ email, password })).error, null);
  });

  it('does not link by email when the provider has not verified it', async () => {
    const email = uniqueEmail();
    const signUp = await browser().client.signUp.email({ email, password, name: 'Grace' });
    const account = await providerAccount('discord', { email, emailVerified: false });
    const { visitor, landing } = await signInWith('discord', account, {
      errorCallbackURL: '/oops',
    });
    assert.equal(landing, '/oops?error=account_not_linked');
    assert.equal(visitor.cookies.get('better-auth.session_token'), undefined);
    const rows = await api.orm.em.fork().find(Account, { user: signUp.data?.user.id });
    assert.deepEqual(
      rows.map((row) => row.providerId),
      ['credential'],
    );
  });

  it('a trusted provider links even an email it has not verified', async () => {
    const trusting = await startApi({ trustedProviders: ['discord'] });
    try {
      const visit = () => browserAuthClient(trusting.url);
      const email = uniqueEmail();
      const signUp = await visit().client.signUp.email({ email, password, name: 'Grace' });
      const account = await providerAccount('discord', { email, emailVerified: false });
      const visitor = visit();
      const { data } = await visitor.client.signIn.social({
        provider: 'discord',
        callbackURL: '/dashboard',
      });
      const landing = await throughProvider(visitor, providerUrl(data), account.id);
      assert.equal(landing, '/dashboard');
      const { data: session } = await visitor.client.getSession();
      assert.equal(session?.user.id, signUp.data?.user.id);
      assert.equal(session?.user.emailVerified, false);
    } finally {
      await trusting.close();
    }
  });

  describe('link-social', () => {
    async function signedInEmailUser(email = uniqueEmail()) {
      const visitor = browser();
      const { data } = await visitor.client.signUp.email({ email, password, name: 'Linker' });
      assert.ok(data?.user);
      return { visitor, user: data.user };
    }

    async function link(visitor: Browser, provider: LocalProviderId, login: string) {
      const { data, error } = await visitor.client.linkSocial({
        provider,
        callbackURL: '/settings',
        errorCallbackURL: '/settings/error',
      });
      assert.equal(error, null);
      assert.equal(data?.redirect, true);
      return throughProvider(visitor, data?.url ?? '', login);
    }

    it("links the signed-in user's provider account with the same email", async () => {
      const { visitor, user } = await signedInEmailUser();
      const account = await providerAccount('discord', { email: user.email });
      assert.equal(await link(visitor, 'discord', account.id), '/settings');
      const { data: accounts } = await visitor.client.listAccounts();
      assert.deepEqual(accounts?.map((entry) => entry.providerId).sort(), [
        'credential',
        'discord',
      ]);
      // Linking again only refreshes the tokens.
      assert.equal(await link(visitor, 'discord', account.id), '/settings');
      assert.equal((await visitor.client.listAccounts()).data?.length, 2);
    });

    it('refuses an unverified email, another email and an account of another user', async () => {
      const { visitor, user } = await signedInEmailUser();
      const unverified = await providerAccount('github', {
        email: user.email,
        emailVerified: false,
      });
      assert.equal(
        await link(visitor, 'github', unverified.id),
        '/settings/error?error=unable_to_link_account',
      );
      const elsewhere = await providerAccount('github');
      assert.equal(
        await link(visitor, 'github', elsewhere.id),
        '/settings/error?error=email_doesn%27t_match',
      );
      // Someone else signed up with this GitHub account, which now shows this user's email: it
      // still cannot move to this user.
      const taken = await providerAccount('github');
      await signInWith('github', taken);
      await addLocalProviderUser(providerBaseUrl('github'), { ...taken, email: user.email });
      assert.equal(
        await link(visitor, 'github', taken.id),
        '/settings/error?error=account_already_linked_to_different_user',
      );
      assert.equal((await visitor.client.listAccounts()).data?.length, 1);
    });

    it('links another email when the configuration allows it', async () => {
      const lenient = await startApi({ allowDifferentEmails: true });
      try {
        const visitor = browserAuthClient(lenient.url);
        await visitor.client.signUp.email({ email: uniqueEmail(), password, name: 'Lenient' });
        const other = await providerAccount('google');
        const { data } = await visitor.client.linkSocial({ provider: 'google', callbackURL: '/s' });
        assert.equal(await throughProvider(visitor, data?.url ?? '', other.id), '/s');
        const { data: accounts } = await visitor.client.listAccounts();
        assert.ok(accounts?.some((entry) => entry.providerId === 'google'));
      } finally {
        await lenient.close();
      }
    });

    it('links a Google account from an id token, after the same rules', async () => {
      const { visitor, user } = await signedInEmailUser();
      const base = providerBaseUrl('google');
      const clientId = process.env.GOOGLE_CLIENT_ID ?? '';
      const linkWith = async (account: LocalProviderUser, as = visitor) => {
        const { idToken } = await localGoogleIdToken(base, { clientId, login: account.id });
        return as.client.linkSocial({ provider: 'google', idToken: { token: idToken } });
      };
      const refusals = [
        [
          await providerAccount('google', { email: user.email, emailVerified: false }),
          401,
          'ACCOUNT_NOT_LINKED__LINKING_NOT_ALLOWED',
        ],
        [await providerAccount('google'), 401, 'ACCOUNT_NOT_LINKED__DIFFERENT_EMAILS_NOT_ALLOWED'],
      ] as const;
      for (const [account, status, code] of refusals) {
        const { error } = await linkWith(account);
        assert.equal(error?.status, status);
        assert.equal(error?.code, code);
      }
      const own = await providerAccount('google', { email: user.email });
      for (const attempt of [1, 2]) {
        const { data, error } = await linkWith(own);
        assert.equal(error, null, `attempt ${attempt}`);
        assert.deepEqual(data, { url: '', status: true, redirect: false });
      }
      const { data: accounts } = await visitor.client.listAccounts();
      assert.deepEqual(accounts?.map((entry) => entry.providerId).sort(), ['credential', 'google']);

      // The same Google account, now showing another user's email, cannot move to them.
      const other = await signedInEmailUser();
      await addLocalProviderUser(base, { ...own, email: other.user.email });
      const { error } = await linkWith(own, other.visitor);
      assert.equal(error?.status, 417);
      assert.equal(error?.code, 'ACCOUNT_NOT_LINKED__UNABLE_TO_CREATE_ACCOUNT');

      const github = await visitor.client.linkSocial({
        provider: 'github',
        idToken: { token: 'x.y.z' },
      });
      assert.equal(github.error?.code, 'ID_TOKEN_NOT_SUPPORTED');
    });

    it('needs a session', async () => {
      const { error } = await browser().client.linkSocial({ provider: 'github' });
      assert.equal(error?.status, 401);
    });
  });

  describe('the callback', () => {
    /** Starts a flow and answers its state, without going to the provider. */
    async function startedFlow(visitor: Browser, errorCallbackURL?: string) {
      const { data } = await visitor.client.signIn.social({
        provider: 'github',
        callbackURL: '/dashboard',
        ...(errorCallbackURL ? { errorCallbackURL } : {}),
      });
      const url = providerUrl(data);
      return { url, state: new URL(url).searchParams.get('state') ?? '' };
    }

    const callback = async (visitor: Browser, query: string, provider = 'github') => {
      const response = await visitor.fetch(`${authBase}/callback/${provider}?${query}`);
      assert.equal(response.status, 302);
      return response.headers.get('location');
    };

    it('refuses a missing, unknown, expired, foreign or reused state', async () => {
      const visitor = browser();
      assert.equal(await callback(visitor, 'code=abc'), `${authBase}/error?state=state_not_found`);
      assert.equal(
        await callback(visitor, 'code=abc&state=one&state=two'),
        `${authBase}/error?error=invalid_callback_request`,
      );
      assert.equal(
        await callback(visitor, 'code=abc&state=made-up'),
        `${authBase}/error?error=please_restart_the_process`,
      );

      const expired = await startedFlow(visitor);
      await api.orm.em
        .fork()
        .nativeUpdate(
          Verification,
          { identifier: stateIdentifier(expired.state) },
          { expiresAt: new Date(Date.now() - 1000) },
        );
      const account = await providerAccount('github');
      assert.equal(
        await throughProvider(visitor, expired.url, account.id),
        `${authBase}/error?error=please_restart_the_process`,
      );

      // A flow started in one browser cannot be finished in another (login CSRF)...
      const owner = browser();
      const started = await startedFlow(owner);
      assert.equal(
        await throughProvider(browser(), started.url, account.id),
        `${authBase}/error?error=state_mismatch`,
      );
      // ...and stays good for the browser that started it, once.
      const authorize = new URL(started.url);
      authorize.searchParams.set('login_hint', account.id);
      const atProvider = await fetch(authorize, { redirect: 'manual' });
      const callbackUrl = atProvider.headers.get('location') ?? '';
      const finished = await owner.fetch(callbackUrl);
      assert.equal(finished.headers.get('location'), '/dashboard');
      const replayed = await owner.fetch(callbackUrl);
      assert.equal(
        replayed.headers.get('location'),
        `${authBase}/error?error=please_restart_the_process`,
      );
    });

    it("sends the provider's errors and bad codes to the errorCallbackURL", async () => {
      const visitor = browser();
      const denied = await startedFlow(visitor, '/oops');
      assert.equal(
        await callback(
          visitor,
          `state=${denied.state}&error=access_denied&error_description=The+user+said+no`,
        ),
        '/oops?error=access_denied&error_description=The+user+said+no',
      );
      const badCode = await startedFlow(visitor, '/oops');
      assert.equal(
        await callback(visitor, `state=${badCode.state}&code=forged`),
        '/oops?error=invalid_code',
      );
      const noCode = await startedFlow(visitor, '/oops');
      assert.equal(await callback(visitor, `state=${noCode.state}`), '/oops?error=no_code');
      const unknown = await startedFlow(visitor, '/oops');
      assert.equal(
        await callback(visitor, `state=${unknown.state}&code=abc`, 'myspace'),
        '/oops?error=oauth_provider_not_found',
      );
      // Without an errorCallbackURL, errors go to the error page.
      const plain = await startedFlow(visitor);
      assert.equal(
        await callback(visitor, `state=${plain.state}&error=access_denied`),
        `${authBase}/error?error=access_denied`,
      );
      // A person the provider does not know is turned away there.
      const stranger = await startedFlow(visitor, '/oops');
      assert.match(
        await throughProvider(visitor, stranger.url, 'nobody@example.com'),
        /^\/oops\?error=access_denied&/,
      );
      assert.equal(visitor.cookies.get('better-auth.session_token'), undefined);
    });

    it('refuses a provider account without an email', async () => {
      const account = await providerAccount('discord', { email: null });
      const { visitor, landing } = await signInWith('discord', account, {
        errorCallbackURL: '/oops',
      });
      assert.equal(landing, '/oops?error=email_not_found');
      assert.equal(visitor.cookies.get('better-auth.session_token'), undefined);
    });

    it('turns a banned user away to the error page', async () => {
      const account = await providerAccount('github');
      const { visitor } = await signInWith('github', account);
      const user = await sessionUser(visitor);
      await api.orm.em.fork().nativeUpdate(User, { id: user.id }, { banned: true });
      const { visitor: again, landing } = await signInWith('github', account, {
        errorCallbackURL: '/oops',
      });
      const location = new URL(landing);
      assert.equal(location.href.split('?')[0], `${authBase}/error`);
      assert.equal(location.searchParams.get('error'), 'banned');
      assert.equal(again.cookies.get('better-auth.session_token'), undefined);
    });
  });

  it('refuses callback URLs on untrusted origins (403)', async () => {
    const fields = [
      ['callbackURL', 'INVALID_CALLBACKURL'],
      ['errorCallbackURL', 'INVALID_ERRORCALLBACKURL'],
      ['newUserCallbackURL', 'INVALID_NEWUSERCALLBACKURL'],
    ] as const;
    for (const [field, code] of fields) {
      const { error } = await browser().client.signIn.social({
        provider: 'github',
        [field]: 'https://evil.example/steal',
      });
      assert.equal(error?.status, 403, field);
      assert.equal(error?.code, code);
    }
    const { error } = await browser().client.signIn.social({
      provider: 'github',
      callbackURL: '//evil.example/steal',
    });
    assert.equal(error?.code, 'INVALID_CALLBACKURL');
  });

  it("answers Better Auth's errors for unknown providers and unsupported id tokens", async () => {
    const { client } = browser();
    const unknown = await client.signIn.social({ provider: 'myspace' as 'github' });
    assert.equal(unknown.error?.status, 404);
    assert.equal(unknown.error?.code, 'PROVIDER_NOT_FOUND');
    const github = await client.signIn.social({ provider: 'github', idToken: { token: 'x.y.z' } });
    assert.equal(github.error?.status, 404);
    assert.equal(github.error?.code, 'ID_TOKEN_NOT_SUPPORTED');
    const response = await fetch(`${authBase}/sign-in/social`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ callbackURL: '/dashboard' }),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { code: string }).code, 'VALIDATION_ERROR');
  });

  describe('Google id tokens', () => {
    const clientId = () => process.env.GOOGLE_CLIENT_ID ?? '';

    it('signs in with an id token from the browser, without a redirect', async () => {
      const account = await providerAccount('google');
      const { idToken } = await localGoogleIdToken(providerBaseUrl('google'), {
        clientId: clientId(),
        login: account.id,
        nonce: 'n-0S6_WzA2Mj',
      });
      const visitor = browser();
      const { data, error } = await visitor.client.signIn.social({
        provider: 'google',
        idToken: { token: idToken, nonce: 'n-0S6_WzA2Mj' },
      });
      assert.equal(error, null);
      assert.ok(data && 'token' in data);
      assert.equal(data.redirect, false);
      assert.equal(data.user.email, account.email);
      const user = await sessionUser(visitor);
      assert.equal(user.id, data.user.id);
      // The same Google account through the redirect flow is the same user.
      const { visitor: redirected } = await signInWith('google', account);
      assert.equal((await sessionUser(redirected)).id, data.user.id);
    });

    it('answers 401 where the callback would redirect, and 403 for a banned user', async () => {
      const email = uniqueEmail();
      const signUp = await browser().client.signUp.email({ email, password, name: 'Taken' });
      const unverified = await providerAccount('google', { email, emailVerified: false });
      const signIn = async (account: LocalProviderUser) => {
        const { idToken } = await localGoogleIdToken(providerBaseUrl('google'), {
          clientId: clientId(),
          login: account.id,
        });
        return browser().client.signIn.social({ provider: 'google', idToken: { token: idToken } });
      };
      const notLinked = await signIn(unverified);
      assert.equal(notLinked.error?.status, 401);
      assert.equal(notLinked.error?.code, 'ACCOUNT_NOT_LINKED');

      await api.orm.em.fork().nativeUpdate(User, { id: signUp.data?.user.id }, { banned: true });
      const banned = await signIn(await providerAccount('google', { email }));
      assert.equal(banned.error?.status, 403);
      assert.equal(banned.error?.code, 'BANNED_USER');
    });

    it('refuses a token for another app, with another nonce, or tampered with', async () => {
      const account = await providerAccount('google');
      const base = providerBaseUrl('google');
      const otherApp = await localGoogleIdToken(base, {
        clientId: 'another-app',
        login: account.id,
      });
      const nonced = await localGoogleIdToken(base, {
        clientId: clientId(),
        login: account.id,
        nonce: 'expected',
      });
      const [header, payload, signature] = nonced.idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, email: 'admin@example.com' }));
      const cases = [
        { token: otherApp.idToken },
        { token: nonced.idToken, nonce: 'something else' },
        { token: `${header}.${forged.toString('base64url')}.${signature}` },
      ];
      for (const idToken of cases) {
        const { error } = await browser().client.signIn.social({ provider: 'google', idToken });
        assert.equal(error?.status, 401);
        assert.equal(error?.code, 'INVALID_TOKEN');
      }
    });
  });

  describe('unlink-account', () => {
    it('keeps the last account, needs a fresh session and an existing account', async () => {
      const github = await providerAccount('github');
      const { visitor } = await signInWith('github', github);
      const only = await visitor.client.unlinkAccount({ providerId: 'github' });
      assert.equal(only.error?.status, 400);
      assert.equal(only.error?.code, 'YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT');

      const user = await sessionUser(visitor);
      const discord = await providerAccount('discord', { email: user.email });
      const { data } = await visitor.client.linkSocial({ provider: 'discord', callbackURL: '/s' });
      assert.equal(await throughProvider(visitor, data?.url ?? '', discord.id), '/s');

      for (const body of [{ providerId: 'myspace' }, { providerId: 'discord', accountId: '1' }]) {
        const { error } = await visitor.client.unlinkAccount(body);
        assert.equal(error?.code, 'ACCOUNT_NOT_FOUND');
      }

      // Signed in two days ago and kept alive by use since (refreshed just now): not fresh.
      const em = api.orm.em.fork();
      await em.nativeUpdate(
        Session,
        { user: user.id },
        { createdAt: new Date(Date.now() - 2 * 86_400_000), updatedAt: new Date() },
      );
      const stale = await visitor.client.unlinkAccount({ providerId: 'discord' });
      assert.equal(stale.error?.status, 403);
      assert.equal(stale.error?.code, 'SESSION_IS_NOT_FRESH');

      const { visitor: fresh } = await signInWith('github', github);
      const unlinked = await fresh.client.unlinkAccount({
        providerId: 'discord',
        accountId: discord.id,
      });
      assert.deepEqual(unlinked.data, { status: true });
      const { data: accounts } = await fresh.client.listAccounts();
      assert.deepEqual(
        accounts?.map((entry) => entry.providerId),
        ['github'],
      );
    });
  });

  describe('provider tokens', () => {
    it('get-access-token refreshes an access token that expires within 5 seconds', async () => {
      const account = await providerAccount('github');
      const { visitor } = await signInWith('github', account);
      const first = await visitor.client.getAccessToken({ providerId: 'github' });
      assert.equal(first.error, null);
      assert.deepEqual(first.data?.scopes, ['read:user', 'user:email']);
      const firstToken = first.data?.accessToken;
      assert.ok(firstToken);
      assert.ok((first.data?.accessTokenExpiresAt?.getTime() ?? 0) > Date.now() + 60_000);
      // Still valid: the same token.
      const again = await visitor.client.getAccessToken({ providerId: 'github' });
      assert.equal(again.data?.accessToken, firstToken);

      const user = await sessionUser(visitor);
      const em = api.orm.em.fork();
      await em.nativeUpdate(
        Account,
        { user: user.id, providerId: 'github' },
        { accessTokenExpiresAt: new Date(Date.now() + 3000) },
      );
      const renewed = await visitor.client.getAccessToken({ providerId: 'github' });
      assert.equal(renewed.error, null);
      assert.notEqual(renewed.data?.accessToken, firstToken);
      assert.ok((renewed.data?.accessTokenExpiresAt?.getTime() ?? 0) > Date.now() + 60_000);
      // The renewed token works at the provider.
      const info = await visitor.client.accountInfo({ accountId: account.id });
      assert.equal(info.data?.user.email, account.email);

      const refreshed = await visitor.client.refreshToken({ providerId: 'github' });
      assert.equal(refreshed.error, null);
      assert.ok(refreshed.data?.accessToken && refreshed.data.refreshToken);
      assert.notEqual(refreshed.data.accessToken, renewed.data?.accessToken);
      const latest = await visitor.client.getAccessToken({ providerId: 'github' });
      assert.equal(latest.data?.accessToken, refreshed.data.accessToken);
    });

    it('answers the account info the provider gives', async () => {
      for (const provider of providers) {
        const account = await providerAccount(provider, { name: 'Info Person' });
        const { visitor } = await signInWith(provider, account);
        const { data, error } = await visitor.client.accountInfo({ accountId: account.id });
        assert.equal(error, null, provider);
        assert.equal(String(data?.user.id), account.id);
        assert.equal(data?.user.email, account.email);
        assert.equal(data?.user.name, 'Info Person');
        assert.equal(data?.user.emailVerified, true);
        assert.ok(data?.data);
      }
    });

    it("never shows or hands out another user's accounts and tokens", async () => {
      const theirs = await providerAccount('github');
      const { visitor: owner } = await signInWith('github', theirs);
      const ownerUser = await sessionUser(owner);
      const [ownerAccount] = (await owner.client.listAccounts()).data ?? [];
      assert.ok(ownerAccount);

      const mine = await providerAccount('discord');
      const { visitor: intruder } = await signInWith('discord', mine);
      const { data: listed } = await intruder.client.listAccounts();
      assert.deepEqual(
        listed?.map((entry) => entry.providerId),
        ['discord'],
      );
      const attempts = [
        intruder.client.getAccessToken({ providerId: 'github', userId: ownerUser.id }),
        intruder.client.getAccessToken({ providerId: 'github', accountId: ownerAccount.id }),
        intruder.client.refreshToken({ providerId: 'github', userId: ownerUser.id }),
        intruder.client.accountInfo({ accountId: theirs.id }),
      ];
      for (const { data, error } of await Promise.all(attempts)) {
        assert.equal(data, null);
        assert.equal(error?.status, 400);
        assert.equal(error?.code, 'ACCOUNT_NOT_FOUND');
      }
      const signedOut = browser().client;
      assert.equal((await signedOut.listAccounts()).error?.status, 401);
      assert.equal((await signedOut.getAccessToken({ providerId: 'github' })).error?.status, 401);
      assert.equal((await owner.client.listAccounts()).data?.length, 1);
    });

    it('names an unconfigured provider as Better Auth does', async () => {
      const account = await providerAccount('github');
      const { visitor } = await signInWith('github', account);
      const { error } = await visitor.client.getAccessToken({ providerId: 'credential' });
      assert.equal(error?.status, 400);
      assert.equal(error?.code, 'PROVIDER_CREDENTIAL_IS_NOT_SUPPORTED');
    });
  });
});

describe('social sign-in configuration', () => {
  it('turns a provider on with its client id and secret, and names a missing half', () => {
    const config = loadConfig({
      GITHUB_CLIENT_ID: 'an-id',
      GITHUB_CLIENT_SECRET: 'a-secret',
      TOLLGATE_OAUTH_TRUSTED_PROVIDERS: 'github, discord',
    });
    assert.deepEqual(config.auth.social.providers.github, {
      clientId: 'an-id',
      clientSecret: 'a-secret',
      baseUrl: undefined,
    });
    assert.equal(config.auth.social.providers.google, undefined);
    assert.deepEqual(config.auth.social.trustedProviders, ['github', 'discord']);
    assert.equal(config.auth.social.allowDifferentEmails, false);
    assert.throws(
      () => loadConfig({ GOOGLE_CLIENT_ID: 'an-id' }),
      /^ConfigurationError: GOOGLE_CLIENT_SECRET must be set when GOOGLE_CLIENT_ID is/,
    );
    assert.throws(
      () => loadConfig({ TOLLGATE_OAUTH_TRUSTED_PROVIDERS: 'myspace' }),
      /^ConfigurationError: TOLLGATE_OAUTH_TRUSTED_PROVIDERS must be a comma-separated list/,
    );
  });

  it('talks to the real providers unless a base URL stands in for them', () => {
    const config = loadRuntimeConfig();
    const credentials = { clientId: 'an-id', clientSecret: 'a-secret', baseUrl: undefined };
    const real = configuredProviders({
      ...config,
      auth: {
        ...config.auth,
        social: {
          ...config.auth.social,
          providers: { github: credentials, google: credentials, discord: credentials },
        },
      },
    });
    const expected = {
      github: 'https://github.com/login/oauth/authorize',
      google: 'https://accounts.google.com/o/oauth2/v2/auth',
      discord: 'https://discord.com/oauth2/authorize',
    };
    for (const id of providers) {
      const provider = real.get(id);
      assert.ok(provider, id);
      const url = provider.authorizationUrl({
        state: 'state',
        codeVerifier: 'v'.repeat(43),
        scopes: [],
        loginHint: undefined,
      });
      assert.equal(`${url.origin}${url.pathname}`, expected[id]);
    }
  });
});
