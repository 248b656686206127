import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi } from '../api/testing.ts';
import { projectRoot } from '../config/env.ts';
import { apiNodeFlags } from '../devstack/app-processes.ts';
import { findFreePort, waitUntilReady } from '../devstack/supervisor.ts';

/** What an OTLP/HTTP JSON export holds, as far as read here. */
interface TracesExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { traceId: string; spanId: string; name: string }[] }[];
  }[];
}

describe('tracing in the API process, as deployed', () => {
  const exports: TracesExport[] = [];
  let collector: Server;
  let collectorUrl: string;

  before(async () => {
    // A collector's OTLP/HTTP receiver: keeps what /v1/traces is sent.
    collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces')
          exports.push(JSON.parse(Buffer.concat(chunks).toString()));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const address = collector.address();
    assert.ok(address && typeof address === 'object');
    collectorUrl = `http://127.0.0.1:${address.port}`;
  });
  after(() => collector?.close());

  it('sends the spans of a request, its SQL included, when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      process.execPath,
      [...apiNodeFlags, join(projectRoot, 'api', 'server.ts')],
      {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
          TOLLGATE_API_HOST: '127.0.0.1',
          TOLLGATE_API_PORT: String(port),
          TOLLGATE_API_PROCESSES: '1',
        },
        stdio: 'ignore',
      },
    );
    try {
      await waitUntilReady(
        'API child',
        async () => (await fetch(`${url}/api/health/ready`)).status === 200,
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const answer = await fetch(`${url}/v1/checkouts/client/no_such_secret`);
      assert.equal(answer.status, 404);
      const traceId = answer.headers.get('x-trace-id');
      assert.match(traceId ?? '', /^[0-9a-f]{32}$/);
      // SIGTERM: the API stops and sends what it still holds.
      child.kill('SIGTERM');
      await once(child, 'exit');

      const resources = exports.flatMap((sent) => sent.resourceSpans);
      const services = resources.map(
        ({ resource }) =>
          resource.attributes.find(({ key }) => key === 'service.name')?.value.stringValue,
      );
      assert.deepEqual([...new Set(services)], ['tollgate-api']);
      const names = resources
        .flatMap(({ scopeSpans }) => scopeSpans.flatMap(({ spans }) => spans))
        .filter((span) => span.traceId === traceId)
        .map((span) => span.name);
      assert.ok(names.includes('GET /v1/checkouts/client/:client_secret'), `${names}`);
      // pg was patched: the entry point started tracing before pg was loaded.
      assert.ok(
        names.some((name) => name.startsWith('pg.query')),
        `the request's SQL among ${names}`,
      );
      // Probes are not traced.
      assert.ok(!names.some((name) => name.includes('/api/health')));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is off without it: no trace id is answered', async () => {
    const api = await startTestApi();
    try {
      const answer = await fetch(`${api.url}/v1/checkouts/client/no_such_secret`);
      assert.equal(answer.status, 404);
      assert.equal(answer.headers.get('x-trace-id'), null);
    } finally {
      await api.close();
    }
  });
});
