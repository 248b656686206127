import { createVerify, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type HttpFake, startHttpFake } from './http-fake.ts';

/**
 * A stand-in for GitHub's REST API with what github_repository grants use: a user by id, and a
 * repository's collaborators (PUT invites with a permission, DELETE removes); and a GitHub App
 * for the seller's connect flow: its installation page (`/apps/<slug>/installations/new`, which
 * installs at once on the account last added and redirects to the app's setup URL with
 * `installation_id`, `setup_action` and `state`), installation access tokens (`POST
 * /app/installations/{id}/access_tokens`, authenticated by the app's RS256 JWT) and the
 * installation's repositories (`GET /installation/repositories` with that token). Token auth
 * (`Authorization: Bearer <token>`); errors in GitHub's `{message, documentation_url}` shape.
 */
export interface GitHubApiFake extends HttpFake {
  token: string;
  /** The app: its id, private key (PEM) and public page (`<web>/apps/<slug>`). */
  app: { id: string; privateKey: string; url: string };
  /** Where the installation page sends the browser back (the app's setup URL). */
  setSetupUrl(url: string): void;
  /** An account the app gets installed on, with the repositories the installation reaches. */
  addInstallationAccount(login: string, repositories: string[]): void;
  addUser(id: string, login: string): void;
  /** login → permission of the repository's collaborators (invited ones included). */
  collaborators(owner: string, repository: string): Record<string, string>;
}

const documentation = 'https://docs.github.com/rest';

/** The app's claims when `authorization` carries a JWT it signed that is valid now, else null. */
function appJwtClaims(
  request: IncomingMessage,
  publicKey: KeyObject,
): { iss?: unknown; exp?: unknown; iat?: unknown } | null {
  const jwt = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  try {
    const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    const verified = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    if (alg !== 'RS256' || !verified) return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const now = Date.now() / 1000;
    // GitHub refuses JWTs living over 10 minutes.
    if (!(claims.exp > now && claims.iat <= now + 60 && claims.exp - claims.iat <= 660))
      return null;
    return claims;
  } catch {
    return null;
  }
}

export async function startGitHubApiFake(): Promise<GitHubApiFake> {
  const token = `fake-github-${randomUUID()}`;
  const users = new Map<string, string>();
  /** `owner/repository` → login → permission */
  const repositories = new Map<string, Map<string, string>>();
  const repository = (owner: string, name: string) => {
    const key = `${owner}/${name}`.toLowerCase();
    let collaborators = repositories.get(key);
    if (!collaborators) {
      collaborators = new Map();
      repositories.set(key, collaborators);
    }
    return collaborators;
  };
  const notFound = { message: 'Not Found', documentation_url: documentation };
  let invitationId = 0;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const appId = String(100_000 + Math.floor(Math.random() * 900_000));
  const slug = `tollgate-test-${appId}`;
  let setupUrl = '';
  /** Accounts the app installs on next (the last added), and each installation's reach. */
  const accounts: { login: string; repositories: string[] }[] = [];
  const installations = new Map<string, { login: string; repositories: string[] }>();
  /** Installation access tokens → installation id. */
  const installationTokens = new Map<string, string>();
  const badCredentials = {
    status: 401,
    body: { message: 'Bad credentials', documentation_url: documentation },
  };
  const fake = await startHttpFake({
    basePath: '',
    notFound,
    authorize: (request) => {
      const path = new URL(request.url ?? '/', 'http://fake').pathname;
      // A browser page: whoever is signed in to GitHub installs the app.
      if (path === `/apps/${slug}/installations/new`) return null;
      if (path.startsWith('/app/')) {
        return appJwtClaims(request, publicKey)?.iss === appId ? null : badCredentials;
      }
      if (path.startsWith('/installation/')) {
        const given = /^(Bearer|token)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[2];
        return given && installationTokens.has(given) ? null : badCredentials;
      }
      return request.headers.authorization === `Bearer ${token}` ? null : badCredentials;
    },
    routes: [
      {
        method: 'GET',
        path: `/apps/${slug}/installations/new`,
        handle: (_params, _body, request) => {
          const account = accounts.at(-1);
          if (!account || !setupUrl) return { status: 404, body: notFound };
          const installationId = String(10_000_000 + installations.size + 1);
          installations.set(installationId, account);
          const back = new URL(setupUrl);
          back.searchParams.set('installation_id', installationId);
          back.searchParams.set('setup_action', 'install');
          const state = new URL(request.url ?? '/', 'http://fake').searchParams.get('state');
          if (state !== null) back.searchParams.set('state', state);
          return { status: 302, headers: { location: back.href } };
        },
      },
      {
        method: 'POST',
        path: '/app/installations/:id/access_tokens',
        handle: ({ id = '' }) => {
          if (!installations.has(id)) return { status: 404, body: notFound };
          const issued = `ghs_${randomUUID().replaceAll('-', '')}`;
          installationTokens.set(issued, id);
          return {
            status: 201,
            body: {
              token: issued,
              expires_at: new Date(Date.now() + 3_600_000).toISOString(),
              permissions: { administration: 'write', metadata: 'read' },
              repository_selection: 'selected',
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/installation/repositories',
        handle: (_params, _body, request) => {
          const given = /^(Bearer|token)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[2];
          const installation = installations.get(installationTokens.get(given ?? '') ?? '');
          if (!installation) return badCredentials;
          const query = new URL(request.url ?? '/', 'http://fake').searchParams;
          const perPage = Math.min(Number(query.get('per_page') ?? 30) || 30, 100);
          const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
          const all = installation.repositories.map((name, index) => ({
            id: index + 1,
            name,
            full_name: `${installation.login}/${name}`,
            owner: { login: installation.login, type: 'Organization' },
            private: true,
          }));
          return {
            status: 200,
            body: {
              total_count: all.length,
              repository_selection: 'selected',
              repositories: all.slice((page - 1) * perPage, page * perPage),
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/user/:id',
        handle: ({ id = '' }) => {
          const login = users.get(id);
          if (!login) return { status: 404, body: notFound };
          return { status: 200, body: { id: Number(id), login, type: 'User' } };
        },
      },
      {
        method: 'PUT',
        path: '/repos/:owner/:repo/collaborators/:username',
        handle: ({ owner = '', repo = '', username = '' }, body) => {
          if (![...users.values()].includes(username)) return { status: 404, body: notFound };
          const permission = typeof body.permission === 'string' ? body.permission : 'push';
          const collaborators = repository(owner, repo);
          const existing = collaborators.get(username);
          collaborators.set(username, permission);
          if (existing === permission) return { status: 204 };
          invitationId += 1;
          return {
            status: 201,
            body: {
              id: invitationId,
              repository: { full_name: `${owner}/${repo}` },
              invitee: { login: username },
              permissions: permission,
            },
          };
        },
      },
      {
        method: 'DELETE',
        path: '/repos/:owner/:repo/collaborators/:username',
        handle: ({ owner = '', repo = '', username = '' }) => {
          repository(owner, repo).delete(username);
          return { status: 204 };
        },
      },
    ],
  });
  return {
    ...fake,
    token,
    app: {
      id: appId,
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      url: `${fake.baseUrl}/apps/${slug}`,
    },
    setSetupUrl: (url) => {
      setupUrl = url;
    },
    addInstallationAccount: (login, names) => {
      accounts.push({ login, repositories: names });
    },
    addUser: (id, login) => {
      users.set(id, login);
    },
    collaborators: (owner, name) => Object.fromEntries(repository(owner, name)),
  };
}
