import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Events,
  type MutableRedirectUri,
  type MutableResponse,
  type MutableToken,
  type OAuth2EndpointsInput,
  OAuth2Server,
} from 'oauth2-mock-server';
import { z } from 'zod';

/**
 * Stand-ins for GitHub, Google and Discord in tests and development: one `oauth2-mock-server`
 * per provider, on the provider's own paths, answering its wire formats (GitHub's /user and
 * /user/emails, Discord's /api/users/@me, Google's id token claims and OIDC userinfo). The API
 * talks to them through its real provider code; only the base URLs differ.
 *
 * Nobody types a password here: the authorize endpoint signs in the account its `login_hint`
 * (or GitHub's `login`) names, else the provider's default account, and sends the browser
 * straight back with a code. Accounts are added over HTTP with POST /dev/users.
 */

export type LocalProviderId = 'github' | 'google' | 'discord';

/** An account at a local provider. */
const localProviderUser = z.object({
  /** The provider's id of the account (digits for GitHub and Discord); a login hint picks by it. */
  id: z.string().min(1),
  /** A login hint picks by it too; null for an account that shares no email. */
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  name: z.string().min(1),
});

export type LocalProviderUser = z.infer<typeof localProviderUser>;

export interface LocalOAuthProvider {
  id: LocalProviderId;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Each provider's paths, as on the real hosts (which the base URL stands in for). */
const providerEndpoints: Record<LocalProviderId, OAuth2EndpointsInput> = {
  github: { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token' },
  google: {
    authorize: '/o/oauth2/v2/auth',
    token: '/token',
    jwks: '/oauth2/v3/certs',
    userinfo: '/v1/userinfo',
  },
  discord: { authorize: '/oauth2/authorize', token: '/api/oauth2/token' },
};

const displayNames: Record<LocalProviderId, string> = {
  github: 'GitHub',
  google: 'Google',
  discord: 'Discord',
};

/** A token endpoint request, its form body parsed by the mock server. */
type TokenRequest = IncomingMessage & { body: Record<string, unknown> };

/** Who an authorization code or a refresh token stands for, and what was granted. */
interface Grant {
  user: LocalProviderUser;
  scopes: string[];
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

const bearerToken = (req: IncomingMessage) =>
  /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];

/** GitHub's ids are numbers on the wire. */
const numericId = (id: string) => (/^\d+$/.test(id) ? Number(id) : id);

// Each provider's own shape of an account's profile.

function githubProfile(user: LocalProviderUser) {
  return {
    login: user.name.toLowerCase().replace(/\W+/g, '-'),
    id: numericId(user.id),
    avatar_url: `https://avatars.githubusercontent.com/u/${user.id}`,
    name: user.name,
    // Most GitHub users keep their email private; /user/emails has it.
    email: null,
  };
}

function githubEmails(user: LocalProviderUser) {
  return user.email
    ? [{ email: user.email, primary: true, verified: user.emailVerified, visibility: 'private' }]
    : [];
}

function discordProfile(user: LocalProviderUser) {
  return {
    id: user.id,
    username: user.name.toLowerCase().replace(/\W+/g, '_'),
    global_name: user.name,
    discriminator: '0',
    avatar: null,
    email: user.email,
    verified: user.emailVerified,
  };
}

function googleClaims(user: LocalProviderUser) {
  return {
    sub: user.id,
    name: user.name,
    picture: `https://lh3.googleusercontent.com/a/${user.id}`,
    ...(user.email ? { email: user.email, email_verified: user.emailVerified } : {}),
  };
}

async function startProvider(
  id: LocalProviderId,
  host: string,
): Promise<{
  provider: LocalOAuthProvider;
  server: OAuth2Server;
}> {
  const server = new OAuth2Server(undefined, undefined, { endpoints: providerEndpoints[id] });
  await server.issuer.keys.generate('RS256');
  const service = server.service;

  const users = new Map<string, LocalProviderUser>();
  const addUser = (user: LocalProviderUser) => {
    users.set(user.id, user);
    if (user.email) users.set(user.email.toLowerCase(), user);
  };
  // Who signs in when nobody is named (`npm start`'s sign-in buttons).
  const defaultUser: LocalProviderUser = {
    id: '1000001',
    email: `local-${id}-user@tollgate.local`,
    emailVerified: true,
    name: `Local ${displayNames[id]} user`,
  };
  addUser(defaultUser);
  const codes = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const accessTokens = new Map<string, LocalProviderUser>();

  const grantOf = (body: Record<string, unknown>) => {
    if (body.grant_type === 'authorization_code') return codes.get(String(body.code));
    if (body.grant_type === 'refresh_token') return refreshTokens.get(String(body.refresh_token));
    return undefined;
  };

  // The authorize step: sign in the hinted account and remember it behind the code.
  service.on(
    Events.BeforeAuthorizeRedirect,
    (redirect: MutableRedirectUri, req: IncomingMessage) => {
      const code = redirect.url.searchParams.get('code');
      if (!code) return;
      const query = new URL(req.url ?? '/', 'http://local').searchParams;
      const hint = query.get('login_hint') ?? query.get('login');
      const user = hint ? (users.get(hint.toLowerCase()) ?? users.get(hint)) : defaultUser;
      if (!user) {
        redirect.url.searchParams.delete('code');
        redirect.url.searchParams.set('error', 'access_denied');
        redirect.url.searchParams.set('error_description', `No account ${hint} here`);
        return;
      }
      const scopes = query.get('scope')?.split(' ').filter(Boolean) ?? [];
      codes.set(code, { user, scopes });
    },
  );

  // Tokens name the account; Google's id token carries its profile claims.
  service.on(Events.BeforeTokenSigning, (token: MutableToken, req: TokenRequest) => {
    const grant = grantOf(req.body);
    if (!grant) return;
    token.payload.sub = grant.user.id;
    // Every token differs, even two for one account within a second.
    token.payload.jti = randomUUID();
    if (id === 'google') Object.assign(token.payload, googleClaims(grant.user));
  });

  service.on(Events.BeforeResponse, (response: MutableResponse, { body }: TokenRequest) => {
    const grant = grantOf(body);
    if (!grant || response.body === '') {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: 'Unknown or used grant' };
      return;
    }
    const answer = response.body;
    if (body.grant_type === 'authorization_code') {
      codes.delete(String(body.code));
      refreshTokens.set(String(answer.refresh_token), grant);
    } else if (id === 'google') {
      // Google keeps its refresh tokens: a refresh answers without a new one.
      delete answer.refresh_token;
    } else {
      // GitHub and Discord rotate them: the used one is spent.
      refreshTokens.delete(String(body.refresh_token));
      refreshTokens.set(String(answer.refresh_token), grant);
    }
    accessTokens.set(String(answer.access_token), grant.user);
    // GitHub lists granted scopes with commas, the others with spaces; only Google is OIDC.
    answer.scope = grant.scopes.join(id === 'github' ? ',' : ' ');
    if (id !== 'google') delete answer.id_token;
  });

  const signedInUser = (req: IncomingMessage) => {
    const token = bearerToken(req);
    return token ? accessTokens.get(token) : undefined;
  };

  service.on(Events.BeforeUserinfo, (response: MutableResponse, req: IncomingMessage) => {
    const user = signedInUser(req);
    response.statusCode = user ? 200 : 401;
    response.body = user ? googleClaims(user) : { error: 'invalid_token' };
  });

  const route = (path: string, answer: (user: LocalProviderUser) => unknown) =>
    service.addRoute('GET', path, (req, res) => {
      const user = signedInUser(req);
      if (user) sendJson(res, 200, answer(user));
      else sendJson(res, 401, { message: 'Bad credentials' });
    });
  if (id === 'github') {
    route('/user', githubProfile);
    route('/user/emails', githubEmails);
  }
  if (id === 'discord') route('/api/users/@me', discordProfile);

  service.addRoute('POST', '/dev/users', (req, res) => {
    const user = localProviderUser.safeParse(req.body);
    if (!user.success) return sendJson(res, 400, { message: user.error.message });
    addUser(user.data);
    sendJson(res, 201, user.data);
  });

  await server.start(0, host);
  // The mock names itself after localhost; the base URL and the id tokens' issuer must agree.
  const baseUrl = `http://${host}:${server.address().port}`;
  server.issuer.url = baseUrl;
  return {
    provider: {
      id,
      baseUrl,
      clientId: `tollgate-local-${id}`,
      clientSecret: `tollgate-local-${id}-secret`,
    },
    server,
  };
}

/** Starts the three local providers on free ports. */
export async function startLocalOAuthProviders(host = '127.0.0.1') {
  const started = await Promise.all(
    (['github', 'google', 'discord'] as const).map((id) => startProvider(id, host)),
  );
  return {
    providers: started.map(({ provider }) => provider),
    stop: async () => {
      await Promise.all(started.map(({ server }) => server.stop()));
    },
  };
}

/** The variables that point the API's providers at the local ones. */
export function localOAuthEnvironment(providers: LocalOAuthProvider[]): Record<string, string> {
  return Object.fromEntries(
    providers.flatMap(({ id, baseUrl, clientId, clientSecret }) => {
      const prefix = id.toUpperCase();
      return [
        [`${prefix}_CLIENT_ID`, clientId],
        [`${prefix}_CLIENT_SECRET`, clientSecret],
        [`TOLLGATE_OAUTH_${prefix}_BASE_URL`, baseUrl],
      ];
    }),
  );
}

/** Adds an account to the local provider at `baseUrl` (used by tests, from any process). */
export async function addLocalProviderUser(baseUrl: string, user: LocalProviderUser) {
  const response = await fetch(`${baseUrl}/dev/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  if (!response.ok) throw new Error(`the local provider refused the user (${response.status})`);
}

/**
 * What Google's sign-in button hands a web page: an id token for `login` issued to `clientId`,
 * from the local Google at `baseUrl`.
 */
export async function localGoogleIdToken(
  baseUrl: string,
  request: { clientId: string; login: string; nonce?: string },
): Promise<{ idToken: string; accessToken: string }> {
  const redirectUri = 'http://127.0.0.1/signed-in';
  const authorize = new URL(`${baseUrl}/o/oauth2/v2/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    login_hint: request.login,
    ...(request.nonce ? { nonce: request.nonce } : {}),
  }).toString();
  const redirected = await fetch(authorize, { redirect: 'manual' });
  const code = new URL(redirected.headers.get('location') ?? '').searchParams.get('code');
  if (!code) throw new Error(`the local Google signed nobody in as ${request.login}`);
  const response = await fetch(`${baseUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: request.clientId,
    }),
  });
  const tokens = (await response.json()) as { id_token: string; access_token: string };
  return { idToken: tokens.id_token, accessToken: tokens.access_token };
}
