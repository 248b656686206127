import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One route of a fake API: the path's named parts and the request's body (JSON, or a form's
 * fields). `headers` go out with the answer (a redirect's Location).
 */
export type FakeHandler = (
  params: Record<string, string>,
  body: Record<string, unknown>,
  request: IncomingMessage,
) => { status: number; body?: unknown; headers?: Record<string, string> };

export interface FakeRoute {
  method: string;
  /** A path under the base URL, `:name` parts matching one segment. */
  path: string;
  handle: FakeHandler;
}

/** What a fake answers instead of its routes: a forced failure, e.g. an outage of the service. */
export interface FakeFailure {
  status: number;
  body: unknown;
}

export interface HttpFake {
  /** The base URL the configuration points at (the real service's equivalent). */
  baseUrl: string;
  /** The next `count` requests answer `failure` (then the routes answer again). */
  failNext(count: number, failure: FakeFailure): void;
  /** The failures still queued are dropped: the service is back. */
  recover(): void;
  /** Every request received, in order: `METHOD /path`. */
  requests: string[];
  stop(): Promise<void>;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.statusCode = status;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  if (body === undefined) return response.end();
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
}

function matchPath(pattern: string, path: string): Record<string, string> | null {
  const expected = pattern.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of expected.entries()) {
    const value = actual[index] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

/** A JSON body, or a form's fields (OAuth token endpoints take forms). */
function parseBody(request: IncomingMessage, text: string): Record<string, unknown> {
  if (!text) return {};
  if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return JSON.parse(text);
}

/**
 * A local HTTP server answering a few routes of a third-party API under `basePath`, for the
 * Discord and GitHub fakes: `authorize` refuses requests without the expected credentials,
 * `notFound` is the service's own 404 body.
 */
export async function startHttpFake(options: {
  basePath: string;
  routes: FakeRoute[];
  authorize: (request: IncomingMessage) => FakeFailure | null;
  notFound: unknown;
}): Promise<HttpFake> {
  const failures: FakeFailure[] = [];
  const requests: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    requests.push(`${request.method} ${path}`);
    const failure = failures.shift() ?? options.authorize(request);
    if (failure) return sendJson(response, failure.status, failure.body);
    const relative = path.startsWith(options.basePath) ? path.slice(options.basePath.length) : '';
    for (const route of options.routes) {
      const params = route.method === request.method && matchPath(route.path, relative);
      if (!params) continue;
      const answer = route.handle(params, parseBody(request, text), request);
      return sendJson(response, answer.status, answer.body, answer.headers);
    }
    sendJson(response, 404, options.notFound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${options.basePath}`,
    failNext(count, failure) {
      for (let index = 0; index < count; index += 1) failures.push(failure);
    },
    recover() {
      failures.length = 0;
    },
    requests,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
