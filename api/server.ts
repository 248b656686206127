import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { loadRuntimeConfig, type RuntimeConfig } from '../config/env.ts';
import { createLogger } from '../config/logger.ts';
import { ChangeListener } from '../db/change-notifications.ts';
import { openOrm } from '../db/orm.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { connectTemporal } from '../temporal/client.ts';
import { createApp } from './app.ts';

/** Opens the API's connections and listens; `close()` undoes both. */
export async function startApiServer(
  config: RuntimeConfig,
  listen: { host: string; port: number } = config.api,
) {
  const logger = createLogger('api', config.logLevel);
  const orm = await openOrm(config.database.url);
  const temporal = await connectTemporal(config.temporal);
  const stripe = createStripeClient(config.stripe);
  const changes = new ChangeListener(config.database.url, logger);
  await changes.start();
  const app = createApp({ config, logger, orm, temporal, stripe, changes });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(listen.port, listen.host, () => resolve(listening));
    listening.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await temporal.connection.close();
    await changes.close();
    await orm.close();
  };
  return { server, url: `http://${listen.host}:${port}`, config, logger, orm, temporal, close };
}

/**
 * `node api/server.ts`: the API in `config.api.processes` processes sharing one port (node's
 * cluster module balances connections). They share nothing but the database and Temporal.
 */
async function main() {
  const config = loadRuntimeConfig();
  if (cluster.isPrimary && config.api.processes > 1) {
    let stopping = false;
    for (let index = 0; index < config.api.processes; index++) cluster.fork();
    cluster.on('exit', (worker, code) => {
      // One process dying takes the API down whole, so a supervisor restarts it cleanly.
      if (!stopping) {
        console.error(`api process ${worker.process.pid} exited with ${code}; stopping`);
        process.exitCode = 1;
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.kill('SIGTERM');
      }
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        stopping = true;
        for (const worker of Object.values(cluster.workers ?? {})) worker?.kill(signal);
      });
    }
    return;
  }
  const api = await startApiServer(config);
  api.logger.info({ url: api.url }, 'api listening');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      await api.close();
      api.logger.info('api stopped');
    });
  }
}

if (import.meta.main) await main();
