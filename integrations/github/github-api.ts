import type { BenefitIntegrationsConfig } from '../../config/env.ts';
import { callIntegration, IntegrationError, integrationFailure } from '../integration-errors.ts';

export interface RepositoryAccess {
  owner: string;
  repository: string;
  login: string;
}

/** GitHub's REST API, with the app's token: users by id and repository collaborators. */
export function githubApi(config: BenefitIntegrationsConfig['github']) {
  const base = config.apiBaseUrl.replace(/\/+$/, '');
  async function call(method: string, path: string, action: string, body?: unknown) {
    if (!config.token) throw new IntegrationError('GitHub', 'No GitHub token is configured.');
    const response = await callIntegration('GitHub', `${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${config.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.ok) return response;
    throw await integrationFailure('GitHub', action, response);
  }
  const collaborator = ({ owner, repository, login }: RepositoryAccess) =>
    `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}/collaborators/${encodeURIComponent(login)}`;

  return {
    /** The login of the account with this id (linked accounts are known by id). */
    async loginOf(accountId: string): Promise<string> {
      const response = await call(
        'GET',
        `/user/${encodeURIComponent(accountId)}`,
        'Finding the user',
      );
      const { login } = (await response.json()) as { login: string };
      return login;
    },

    /** Invites the user with the permission (or changes an existing collaborator's). */
    async addCollaborator(access: RepositoryAccess, permission: string) {
      await call('PUT', collaborator(access), 'Inviting the collaborator', { permission });
    },

    async removeCollaborator(access: RepositoryAccess) {
      await call('DELETE', collaborator(access), 'Removing the collaborator');
    },
  };
}
