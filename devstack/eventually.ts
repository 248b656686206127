import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `read` until `done` holds of its answer, and answers that; fails after `timeoutMs`,
 * naming `what` and the last answer read. For tests and benches waiting on asynchronous work
 * (workflows, webhook deliveries, caches).
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, intervalMs = 50, what = 'the expected state' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`${what} not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    }
    await sleep(intervalMs);
  }
}
