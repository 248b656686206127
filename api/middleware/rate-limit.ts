import { createHash } from 'node:crypto';
import type { Limit } from '../../domain/rate-limits.ts';
import type { AppDependencies } from '../dependencies.ts';

/**
 * Fixed-window counters in PostgreSQL (table rate_limits), so every API process counts against
 * the same numbers. One statement per check: it starts a new window when there is none or the
 * last one is over, otherwise adds one, and answers the count and the seconds left, all on the
 * database's clock.
 */
const countRequest = `
  insert into rate_limits as counter (key, count, window_started_at)
  values (?, 1, now())
  on conflict (key) do update set
    count = case
      when counter.window_started_at + make_interval(secs => ?) <= now() then 1
      else counter.count + 1
    end,
    window_started_at = case
      when counter.window_started_at + make_interval(secs => ?) <= now() then now()
      else counter.window_started_at
    end
  returning
    count,
    ceil(extract(epoch from counter.window_started_at + make_interval(secs => ?) - now()))::int
      as seconds_left`;

const deleteEndedWindows = `
  delete from rate_limits where window_started_at < now() - make_interval(secs => ?)`;

/** How often each counter deletes the counters of windows long over. */
const cleanupIntervalMs = 60_000;

/**
 * The longest window of every counter made in this process (auth's and the public API's share
 * the table): a cleanup never deletes a counter whose window, under any rule, is still running.
 */
let longestWindowInUse = 0;

/** Keys hold a digest of the IP or account: bounded in length, and no addresses at rest. */
export const counterKey = (rule: string, scope: string, subject: string) =>
  `${rule}:${scope}:${createHash('sha256').update(subject).digest('base64url')}`;

export interface RateLimitCounter {
  /** Counts one request against `key`; answers the seconds to wait when over `limit`, else null. */
  count(key: string, limit: Limit): Promise<number | null>;
}

/**
 * Counts requests against limits whose windows are at most `longestWindowSeconds`. Expired
 * counters are harmless (the next request restarts them) but would pile up: each counter
 * clears them now and then, off the request's path.
 */
export function rateLimitCounter(
  { orm, logger }: Pick<AppDependencies, 'orm' | 'logger'>,
  longestWindowSeconds: number,
): RateLimitCounter {
  longestWindowInUse = Math.max(longestWindowInUse, longestWindowSeconds);
  const connection = orm.em.getConnection();
  let lastCleanup = 0;

  const cleanUpNowAndThen = () => {
    if (Date.now() - lastCleanup < cleanupIntervalMs) return;
    lastCleanup = Date.now();
    connection
      .execute(deleteEndedWindows, [longestWindowInUse], 'run')
      .catch((error: unknown) => logger.warn({ err: error }, 'rate limit cleanup failed'));
  };

  return {
    async count(key, limit) {
      cleanUpNowAndThen();
      const [row] = await connection.execute<{ count: number; seconds_left: number }[]>(
        countRequest,
        [key, limit.windowSeconds, limit.windowSeconds, limit.windowSeconds],
      );
      if (!row || row.count <= limit.max) return null;
      return Math.max(1, row.seconds_left);
    },
  };
}
