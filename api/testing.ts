import { loadRuntimeConfig } from '../config/env.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { startApiServer } from './server.ts';

/**
 * The real API on a free port, wired to the test run's services (the environment `npm test`
 * sets). While it runs, the run's Stripe simulator sends its webhook events here (any live
 * test API will do: they share the database and Temporal). Close it in `after`.
 */
export async function startTestApi(
  config = loadRuntimeConfig(),
  listen: { host: string; port: number } = { host: '127.0.0.1', port: 0 },
) {
  const api = await startApiServer(config, listen);
  const simulatorUrl = config.stripe.simulatorUrl;
  if (!simulatorUrl) return api;
  const stripeSimulator = stripeSimulatorControl(simulatorUrl);
  const webhookUrl = `${api.url}/v1/integrations/stripe/webhook`;
  await stripeSimulator.registerWebhookTarget(webhookUrl);
  return {
    ...api,
    async close() {
      await stripeSimulator.unregisterWebhookTarget(webhookUrl);
      await api.close();
    },
  };
}
