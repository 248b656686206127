/**
 * One autocannon run, in a process of its own so that the load generator never shares an event
 * loop with a server under test. Takes its options as JSON in argv[2] and prints a summary as
 * JSON on stdout.
 *
 *   node bench/auth/load-generator.ts '{"url":"http://127.0.0.1:3000/api/auth/ok",...}'
 */
import { createRequire } from 'node:module';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Replace each `[<id>]` in the body with a fresh id per request (unique emails, say). */
  idReplacement?: boolean;
  /**
   * Stop after this many answers instead of after `durationSeconds` (then only the generator's
   * time limit): every request sent is answered within the run, for routes answering seconds apart.
   */
  answers?: number;
}

export interface LoadSummary {
  requestsPerSecond: number;
  requests: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU milliseconds the generator itself burned during the run (it shares the server's cores). */
  cpuMs: number;
}

/** The part of autocannon's result this benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { mean: number; total: number };
  /** Seconds from the first request to the end. */
  duration: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const options = JSON.parse(process.argv[2] ?? '') as LoadOptions;

const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.durationSeconds,
  method: options.method ?? 'GET',
  headers: options.headers ?? {},
  body: options.body,
  idReplacement: options.idReplacement ?? false,
  amount: options.answers,
  // Better Auth's sign-in queues behind its pure-JS scrypt: seconds per answer, not an error.
  timeout: 30,
});
const cpu = process.cpuUsage(cpuBefore);

const summary: LoadSummary = {
  // A run to a number of answers ends inside its last second: the mean of whole seconds misleads.
  requestsPerSecond:
    options.answers === undefined ? result.requests.mean : result.requests.total / result.duration,
  requests: result.requests.total,
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
  ),
  cpuMs: (cpu.user + cpu.system) / 1000,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
