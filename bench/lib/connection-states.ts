import type { Orm } from '../../db/orm.ts';

/**
 * The bench database's connections by state, sampled as often as the benchmark likes, and where
 * transactions wait: a connection idle in transaction holds its transaction open while its
 * process does something else (a network call, a queue, a busy event loop). Its last statement
 * says which transaction it is.
 */
export function connectionStates(orm: Orm) {
  const samples: Record<string, number>[] = [];
  /** How often each statement was the last one of a connection seen idle in transaction. */
  const idleInTransactionAfter = new Map<string, number>();

  return {
    async sample() {
      const rows = await orm.em.getConnection().execute<{ state: string; query: string }[]>(
        `select coalesce(state, 'none') as state,
           left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 100) as query
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      const byState: Record<string, number> = {};
      for (const { state, query } of rows) {
        byState[state] = (byState[state] ?? 0) + 1;
        if (state === 'idle in transaction') {
          idleInTransactionAfter.set(query, (idleInTransactionAfter.get(query) ?? 0) + 1);
        }
      }
      samples.push(byState);
    },

    /**
     * The mean of each state over the samples, and idle in transaction in detail: mean, max and
     * the five statements most often last before the wait, with their share of all seen.
     */
    summary() {
      const mean = (values: number[]) =>
        Number((values.reduce((sum, value) => sum + value, 0) / (values.length || 1)).toFixed(1));
      const states = [...new Set(samples.flatMap(Object.keys))];
      const idle = samples.map((sample) => sample['idle in transaction'] ?? 0);
      const idleSeen = idle.reduce((sum, value) => sum + value, 0);
      return {
        meanByState: Object.fromEntries(
          states.map((state) => [state, mean(samples.map((sample) => sample[state] ?? 0))]),
        ),
        idleInTransaction: {
          mean: mean(idle),
          max: Math.max(0, ...idle),
          samples: samples.length,
          after: [...idleInTransactionAfter]
            .sort(([, a], [, b]) => b - a)
            .slice(0, 5)
            .map(([query, seen]) => ({
              query,
              share: Number((seen / Math.max(1, idleSeen)).toFixed(2)),
            })),
        },
      };
    },
  };
}
