import { createServer, type Server } from 'node:http';
import { bearerTokenCheck } from '../core/bearer-token.ts';
import { metricsContentType, metricsText } from '../core/metrics.ts';

/**
 * The worker's GET /metrics (it has no other HTTP): on an internal address, asking the metrics
 * token when one is set. In a pool of worker processes the primary serves it with the sums of
 * its copies (core/metrics.ts).
 */
export async function serveMetrics(
  { host, port }: { host: string; port: number },
  token: string | undefined,
): Promise<Server> {
  const presentsToken = bearerTokenCheck(token);
  const server = createServer((request, response) => {
    const path = request.url?.split('?', 1)[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    if (token !== undefined && !presentsToken(request.headers.authorization)) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    metricsText().then(
      (text) => response.writeHead(200, { 'content-type': metricsContentType }).end(text),
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
