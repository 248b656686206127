import { randomBytes } from 'node:crypto';
import { Polar } from '@polar-sh/sdk';
import { HTTPClient } from '@polar-sh/sdk/lib/http.js';
import { startTestApi } from '../api/testing.ts';
import { Member, Organization, User } from '../db/entities/index.ts';
import { allScopes, type Scope } from '../domain/scopes.ts';
import { createAccessToken } from './access-tokens/service.ts';
import { answerProblem } from './http/openapi.ts';
import { commerceOperations } from './operations.ts';

export type TestApi = Awaited<ReturnType<typeof startTestApi>>;

/** The real API on a free port (close it in `after`). */
export const startCommerceApi = startTestApi;

// The SDK's own timeout can be collected before it fires (see the commerce reference), so each
// request gets its own abort timer here.
const requestTimeoutMs = 15_000;

/**
 * Checks a JSON answer against the operation the document says answers its method and path,
 * throwing what differs: the SDK call that got it rejects, so the test that made it fails.
 * Every test driving the SDK thereby checks the OpenAPI document against the real answers.
 */
async function checkAgainstDocument(response: Response, request: Request): Promise<void> {
  if (!response.headers.get('content-type')?.includes('json')) return;
  const text = await response.clone().text();
  const problem = answerProblem(
    { operations: commerceOperations, envelope: 'commerce' },
    {
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      body: text ? JSON.parse(text) : null,
    },
  );
  if (problem) throw new Error(`The answer differs from the OpenAPI document: ${problem}`);
}

/**
 * Polar's SDK pointed at Tollgate, without retries, each JSON answer checked against the
 * OpenAPI document; no token for an anonymous client.
 */
export function polarClient(serverURL: string, accessToken?: string): Polar {
  const httpClient = new HTTPClient({
    fetcher: (input, init) => {
      const request = new Request(input, init);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), requestTimeoutMs);
      return fetch(request, { signal: controller.signal }).finally(() => clearTimeout(timer));
    },
  }).addHook('response', checkAgainstDocument);
  return new Polar({
    serverURL,
    // An empty string, not undefined: the SDK would fall back to POLAR_ACCESS_TOKEN.
    accessToken: accessToken ?? '',
    httpClient,
    retryConfig: { strategy: 'none' },
  });
}

/** A seller: an organization, its owner, and an access token with `scopes` driving the SDK. */
export interface Seller {
  organizationId: string;
  ownerId: string;
  token: string;
  polar: Polar;
}

const uniqueTag = () => randomBytes(5).toString('hex');

/**
 * Creates a seller straight in the database (signing up through /api/auth is tested elsewhere)
 * and issues it an organization access token.
 */
export async function createSeller(
  api: TestApi,
  { scopes = allScopes }: { scopes?: Scope[] } = {},
): Promise<Seller> {
  const em = api.orm.em.fork();
  const tag = uniqueTag();
  const owner = em.create(User, { email: `seller-${tag}@example.com`, name: `Seller ${tag}` });
  const organization = em.create(Organization, { name: `Seller ${tag}`, slug: `seller-${tag}` });
  em.create(Member, { organization, user: owner, role: 'owner' });
  await em.flush();
  const { token } = await createAccessToken(em, {
    organizationId: organization.id,
    comment: 'tests',
    scopes,
  });
  return {
    organizationId: organization.id,
    ownerId: owner.id,
    token,
    polar: polarClient(api.url, token),
  };
}

/**
 * A raw /v1 call with the seller's token, for what the SDK would refuse to send (bad input) or
 * to read the wire itself: answers the status and the parsed JSON body.
 */
export async function callV1(
  api: TestApi,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the wire carried
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
