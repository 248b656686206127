import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Has the API and worker processes started from now on count their database round trips into
 * `countDir` (query-counter.ts preloaded into them through the inherited NODE_OPTIONS).
 */
export function countQueriesOfAppProcesses(countDir: string) {
  mkdirSync(countDir, { recursive: true });
  process.env.NODE_OPTIONS = [
    process.env.NODE_OPTIONS,
    `--import=${join(import.meta.dirname, 'query-counter.ts')}`,
  ]
    .filter(Boolean)
    .join(' ');
  process.env.TOLLGATE_QUERY_COUNT_DIR = countDir;
}

/** Round trips counted so far, by process role and client (`worker orm`, …), over processes. */
export function queryCounts(countDir: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of readdirSync(countDir)) {
    const role = /^\d+-(worker|server)\.json$/.exec(file)?.[1];
    if (!role) continue;
    const byClient = JSON.parse(readFileSync(join(countDir, file), 'utf8')) as Record<
      string,
      number
    >;
    for (const [client, queries] of Object.entries(byClient)) {
      const key = `${role === 'server' ? 'api' : role} ${client}`;
      counts[key] = (counts[key] ?? 0) + queries;
    }
  }
  return counts;
}

/**
 * Statements sent so far (countQueriesOfAppProcesses with TOLLGATE_QUERY_COUNT_STATEMENTS set),
 * by `<role> <client>: <statement, values blanked>`, over processes.
 */
export function statementCounts(countDir: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of readdirSync(countDir)) {
    const role = /^\d+-(worker|server)\.statements\.json$/.exec(file)?.[1];
    if (!role) continue;
    const byStatement = JSON.parse(readFileSync(join(countDir, file), 'utf8')) as Record<
      string,
      number
    >;
    for (const [statement, queries] of Object.entries(byStatement)) {
      const key = `${role === 'server' ? 'api' : role} ${statement}`;
      counts[key] = (counts[key] ?? 0) + queries;
    }
  }
  return counts;
}
