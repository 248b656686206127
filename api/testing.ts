import { loadRuntimeConfig } from '../config/env.ts';
import { startApiServer } from './server.ts';

/**
 * The real API on a free port, wired to the test run's services (the environment `npm test`
 * sets). Close it in `after`.
 */
export function startTestApi() {
  return startApiServer(loadRuntimeConfig(), { host: '127.0.0.1', port: 0 });
}
