import { createAuthClient } from 'better-auth/client';
import { adminClient, apiKeyClient, organizationClient } from 'better-auth/client/plugins';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import type { AppDependencies } from '../dependencies.ts';
import { authRoutes } from './routes.ts';

/**
 * A browser's cookie handling, reduced to what tests need: Set-Cookie answers are kept and
 * sent back on later requests to the same server, and deletions are honoured.
 */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      const expired = attributes.some(
        (attribute) =>
          /^max-age=(0|-\d+)$/i.test(attribute) ||
          (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) <= Date.now()),
      );
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}

/** Sees each request the client sends and the answer it gets (e.g. to check it against a schema). */
export type ExchangeObserver = (method: string, url: URL, response: Response) => void;

/**
 * Better Auth's own client, as an app would use it, against a Tollgate API at `baseUrl`,
 * behaving like a browser on `origin`: it sends the Origin header and keeps cookies.
 */
export function browserAuthClient(baseUrl: string, origin = baseUrl, observe?: ExchangeObserver) {
  const cookies = new CookieJar();
  const browserFetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('origin', origin);
    const cookieHeader = cookies.header();
    if (cookieHeader) headers.set('cookie', cookieHeader);
    const response = await fetch(input, { ...init, headers, redirect: 'manual' });
    cookies.store(response);
    const url = new URL(input instanceof Request ? input.url : input);
    observe?.(init.method ?? (input instanceof Request ? input.method : 'GET'), url, response);
    return response;
  };
  const client = createAuthClient({
    baseURL: `${baseUrl}/api/auth`,
    fetchOptions: { customFetchImpl: browserFetch },
    plugins: [adminClient(), apiKeyClient(), organizationClient({ teams: { enabled: true } })],
  });
  return { client, cookies, fetch: browserFetch };
}

/** `METHOD /path` of every /api/auth route, as @koa/router holds it. */
export function authRouteTable(
  api: Pick<AppDependencies, 'config' | 'logger' | 'orm' | 'temporal'>,
): string[] {
  const router = authRoutes({ ...api, stripe: createStripeClient(api.config.stripe) });
  // HEAD answers as GET; a layer without methods is middleware.
  return router.stack.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${layer.path}`),
  );
}
