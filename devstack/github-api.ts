import { randomUUID } from 'node:crypto';
import { type HttpFake, startHttpFake } from './http-fake.ts';

/**
 * A stand-in for GitHub's REST API with what github_repository grants use: a user by id, and a
 * repository's collaborators (PUT invites with a permission, DELETE removes). Token auth
 * (`Authorization: Bearer <token>`); errors in GitHub's `{message, documentation_url}` shape.
 */
export interface GitHubApiFake extends HttpFake {
  token: string;
  addUser(id: string, login: string): void;
  /** login → permission of the repository's collaborators (invited ones included). */
  collaborators(owner: string, repository: string): Record<string, string>;
}

const documentation = 'https://docs.github.com/rest';

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
  const fake = await startHttpFake({
    basePath: '',
    notFound,
    authorize: (request) =>
      request.headers.authorization === `Bearer ${token}`
        ? null
        : { status: 401, body: { message: 'Bad credentials', documentation_url: documentation } },
    routes: [
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
    addUser: (id, login) => {
      users.set(id, login);
    },
    collaborators: (owner, name) => Object.fromEntries(repository(owner, name)),
  };
}
