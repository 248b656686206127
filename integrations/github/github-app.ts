import { createSign } from 'node:crypto';
import type { BenefitIntegrationsConfig, GitHubAppConfig } from '../../config/env.ts';
import { callIntegration, integrationFailure } from '../integration-errors.ts';

/** A repository an installation of the app reaches. */
export interface InstallationRepository {
  owner: string;
  name: string;
}

/** The app's installation page: GitHub sends the browser back to the app's setup URL with `state`. */
export function appInstallUrl(app: GitHubAppConfig, state: string): string {
  const url = new URL(`${app.url}/installations/new`);
  url.searchParams.set('state', state);
  return url.href;
}

/**
 * The app's own credential: a JWT signed with its private key (RS256), issued a minute in the
 * past against clock drift and living 9 minutes (GitHub takes at most 10).
 */
export function appJwt(app: GitHubAppConfig, now = Date.now()): string {
  const seconds = Math.floor(now / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
    iat: seconds - 60,
    exp: seconds + 9 * 60,
    iss: app.id,
  })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(app.privateKey, 'base64url');
  return `${unsigned}.${signature}`;
}

const pageSize = 100;
// An installation reaching more repositories than this is listed up to here.
const maximumPages = 10;

/**
 * The repositories an installation of the app reaches: an installation access token (POST
 * /app/installations/{id}/access_tokens with the app's JWT), then GET /installation/repositories.
 */
export async function installationRepositories(
  settings: BenefitIntegrationsConfig['github'],
  app: GitHubAppConfig,
  installationId: string,
): Promise<InstallationRepository[]> {
  const base = settings.apiBaseUrl.replace(/\/+$/, '');
  const headers = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
  const tokenResponse = await callIntegration(
    'GitHub',
    `${base}/app/installations/${encodeURIComponent(installationId)}/access_tokens`,
    { method: 'POST', headers: { ...headers, authorization: `Bearer ${appJwt(app)}` } },
  );
  if (!tokenResponse.ok) {
    throw await integrationFailure('GitHub', 'Reaching the installation', tokenResponse);
  }
  const { token } = (await tokenResponse.json()) as { token: string };
  const repositories: InstallationRepository[] = [];
  for (let page = 1; page <= maximumPages; page += 1) {
    const response = await callIntegration(
      'GitHub',
      `${base}/installation/repositories?per_page=${pageSize}&page=${page}`,
      { method: 'GET', headers: { ...headers, authorization: `Bearer ${token}` } },
    );
    if (!response.ok) throw await integrationFailure('GitHub', 'Listing repositories', response);
    const body = (await response.json()) as {
      total_count: number;
      repositories: { name: string; owner: { login: string } }[];
    };
    repositories.push(
      ...body.repositories.map((repository) => ({
        owner: repository.owner.login,
        name: repository.name,
      })),
    );
    if (body.repositories.length < pageSize || repositories.length >= body.total_count) break;
  }
  return repositories;
}
