// First: starts tracing, when it is on, before any other module is evaluated.
import '../core/start-tracing.ts';
import cluster from 'node:cluster';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ingestPaths } from '../commerce/events/routes.ts';
import { ConfigurationError, loadRuntimeConfig, type RuntimeConfig } from '../config/env.ts';
import { createLogger } from '../config/logger.ts';
import { answerPoolMetricsRequests, collectProcessMetrics } from '../core/metrics.ts';
import { exitOnceStopped, processPool, stopGraceMs } from '../core/process-pool.ts';
import { installedTracing } from '../core/trace-context.ts';
import { ChangeListener } from '../db/change-notifications.ts';
import { observeDatabase } from '../db/metrics.ts';
import { openOrm } from '../db/orm.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { connectTemporal } from '../temporal/client.ts';
import { createApp } from './app.ts';

/**
 * Opens the API's connections and listens; `close()` undoes both. With `ingestUrl`, event
 * ingestion is not handled here but passed on, as it comes, to the API processes there.
 */
export async function startApiServer(
  config: RuntimeConfig,
  listen: { host: string; port: number } = config.api,
  ingestUrl?: string,
) {
  const logger = createLogger('api', config.logLevel);
  const orm = await openOrm(config.database.url);
  collectProcessMetrics();
  const unobserveDatabase = observeDatabase(orm);
  const temporal = await connectTemporal(config.temporal);
  const stripe = createStripeClient(config.stripe);
  const changes = new ChangeListener(config.database.url, logger);
  await changes.start();
  const app = createApp({ config, logger, orm, temporal, stripe, changes });
  const handle = app.callback();
  const forward = ingestUrl ? ingestForwarder(ingestUrl) : undefined;
  /** Requests being answered: a drain closes their connections once they are answered. */
  const answering = new Set<ServerResponse>();
  let draining = false;
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createServer((request, response) => {
      // A request on a connection opened before the drain began (new ones are refused).
      if (draining) return refuseWhileDraining(response);
      answering.add(response);
      response.once('close', () => answering.delete(response));
      const path = request.url?.split('?', 1)[0] ?? '';
      if (forward && ingestPaths.includes(path)) forward(request, response);
      else void handle(request, response);
    });
    listening.listen(listen.port, listen.host, () => resolve(listening));
    listening.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  /**
   * Drains, then closes the connections: new connections are refused from now on (the port is
   * no longer listened to), idle kept-alive ones are closed, and requests under way are
   * answered, each connection closed once its answer is sent; whatever is still unanswered after
   * `drainMs` is cut off. Then Temporal, the change listener and the database pool are closed.
   */
  const close = async () => {
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const response of answering) {
      // Not kept alive: the connection is closed right after this answer.
      if (!response.headersSent) response.shouldKeepAlive = false;
      else response.once('finish', () => response.socket?.end());
    }
    const drained = await Promise.race([
      closed.then(() => true),
      sleep(drainMs, false, { ref: false }),
    ]);
    if (!drained) {
      logger.warn({ unanswered: answering.size }, 'requests cut off at the end of the drain');
      server.closeAllConnections();
      await closed;
    }
    await temporal.connection.close();
    await changes.close();
    unobserveDatabase();
    await orm.close();
  };
  return { server, url: `http://${listen.host}:${port}`, config, logger, orm, temporal, close };
}

/**
 * How long requests under way at SIGTERM have to be answered: within the grace period a process
 * pool allows a copy, with time left to close the connections after.
 */
const drainMs = stopGraceMs - 2_000;

/** The answer to a request that arrives while its process drains: sent again, it reaches another. */
function refuseWhileDraining(response: ServerResponse) {
  response.shouldKeepAlive = false;
  response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  response.end(
    JSON.stringify({
      error: 'ServiceUnavailable',
      detail: 'This API process is shutting down; send the request again',
    }),
  );
}

/** Hop-by-hop headers: about one connection, never passed on. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding']);

/**
 * Passes a request on to the ingesting processes at `target`, body and answer streamed as they
 * come (nothing parsed here); a client that goes away aborts the request there too, so a batch
 * is still stored whole or not at all.
 */
function ingestForwarder(target: string) {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(target);
  return (request: IncomingMessage, response: ServerResponse) => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !hopByHop.has(name)),
    );
    const upstream = httpRequest(
      { agent, hostname, port, method: request.method, path: request.url, headers },
      (answer) => {
        const answerHeaders = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !hopByHop.has(name)),
        );
        response.writeHead(answer.statusCode ?? 502, answerHeaders);
        answer.pipe(response);
      },
    );
    upstream.once('error', () => {
      if (response.headersSent) return void response.destroy();
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end(
        JSON.stringify({
          error: 'IngestionUnavailable',
          detail: 'Event ingestion is restarting; send the batch again',
        }),
      );
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  };
}

/** Set by the primary on the processes it forks (see `main`). */
const processRole = { variable: 'TOLLGATE_API_PROCESS_ROLE', ingestUrl: 'TOLLGATE_API_INGEST_URL' };

/**
 * `node api/server.ts`: the API in `config.api.processes` processes sharing one port (node's
 * cluster module balances connections). They share nothing but the database and Temporal. With
 * `config.api.ingestProcesses`, that many of them listen on a loopback port of their own instead
 * and take event ingestion alone; the others pass ingestion on to them and serve the rest, so
 * that a stream of batches never holds up a meter read.
 */
async function main() {
  const config = loadRuntimeConfig();
  if (config.api.ingestProcesses >= config.api.processes && config.api.ingestProcesses > 0) {
    throw new ConfigurationError(
      `TOLLGATE_API_INGEST_PROCESSES must be less than TOLLGATE_API_PROCESSES (${config.api.processes}): at least one process serves everything else`,
    );
  }
  if (cluster.isPrimary && config.api.processes > 1) {
    const pool = processPool('api');
    // A scrape reaches one copy, which asks here for the sums of all (core/metrics.ts).
    answerPoolMetricsRequests();
    const { processes, ingestProcesses } = config.api;
    const forwarding: Record<string, string> = {};
    if (ingestProcesses > 0) {
      const listening = new Promise<number>((resolve) =>
        cluster.once('listening', (_worker, address) => resolve(address.port)),
      );
      for (let index = 0; index < ingestProcesses; index++) {
        pool.fork({ [processRole.variable]: 'ingest' });
      }
      // Each ingesting process listens on port 0: in a cluster they all get the same one.
      forwarding[processRole.ingestUrl] = `http://127.0.0.1:${await listening}`;
    }
    for (let index = ingestProcesses; index < processes; index++) pool.fork(forwarding);
    return;
  }
  const ingesting = process.env[processRole.variable] === 'ingest';
  const api = await startApiServer(
    config,
    ingesting ? { host: '127.0.0.1', port: 0 } : config.api,
    process.env[processRole.ingestUrl],
  );
  api.logger.info({ url: api.url, ingesting }, 'api listening');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      await api.close();
      await installedTracing()?.shutdown();
      api.logger.info('api stopped');
      exitOnceStopped((activeResources) =>
        api.logger.warn({ activeResources }, 'still running after the API stopped; exiting'),
      );
    });
  }
}

if (import.meta.main) await main();
