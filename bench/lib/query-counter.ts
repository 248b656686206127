/**
 * Preloaded into the app's processes by a benchmark (`NODE_OPTIONS=--import <this file>`, with
 * TOLLGATE_QUERY_COUNT_DIR set): counts the queries each process sends PostgreSQL, one round
 * trip each, and keeps the counts in `<dir>/<pid>-<role>.json` for the benchmark to read:
 * `orm` through MikroORM (its own copy of `pg`), `direct` through the app's own `pg` clients
 * (change notifications, the webhook relay). With TOLLGATE_QUERY_COUNT_STATEMENTS set, also the
 * statements themselves, their values blanked so that one statement is one group, in
 * `<dir>/<pid>-<role>.statements.json` (read by statementCounts).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import type pg from 'pg';

const directory = process.env.TOLLGATE_QUERY_COUNT_DIR;
// The main thread only: a worker thread (Temporal's workflow sandbox) sends no queries, and would
// write its zeros over the process's counts.
if (directory && isMainThread) {
  const counts = { orm: 0, direct: 0 };
  const statements: Record<string, number> | undefined = process.env.TOLLGATE_QUERY_COUNT_STATEMENTS
    ? {}
    : undefined;
  const fromHere = createRequire(import.meta.url);
  const fromOrm = createRequire(fileURLToPath(import.meta.resolve('@mikro-orm/postgresql')));
  const clients = new Map<typeof pg.Client, keyof typeof counts>([
    [fromHere('pg').Client, 'direct'],
    // The ORM's copy when it has one of its own; else the same module, counted as the ORM's.
    [fromOrm('pg').Client, 'orm'],
  ]);
  for (const [Client, kind] of clients) {
    const query = Client.prototype.query;
    Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
      counts[kind] += 1;
      if (statements) {
        const key = `${kind}: ${statementGroup(args[0])}`;
        statements[key] = (statements[key] ?? 0) + 1;
      }
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  }
  // The role is the entry script: worker, server, …
  const role = basename(process.argv[1] ?? 'node', '.ts');
  const file = join(directory, `${process.pid}-${role}.json`);
  const statementsFile = join(directory, `${process.pid}-${role}.statements.json`);
  let saved = '';
  let savedStatements = '';
  // Written when changed only: a synchronous write every 200 ms costs the process being measured.
  const save = () => {
    const text = JSON.stringify(counts);
    if (text !== saved) writeFileSync(file, text);
    saved = text;
    if (!statements) return;
    const statementsText = JSON.stringify(statements);
    if (statementsText !== savedStatements) writeFileSync(statementsFile, statementsText);
    savedStatements = statementsText;
  };
  setInterval(save, 200).unref();
  process.on('exit', save);
}

/**
 * A statement's text with its values blanked (MikroORM sends them spliced in): quoted strings,
 * numbers and `in (…)` lists of them each become `?`.
 */
function statementGroup(query: unknown): string {
  const text =
    typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text ?? '');
  return text
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\b\d+(?:\.\d+)?\b/g, '?')
    .replace(/\(\s*\?(?:\s*,\s*\?)*\s*\)/g, '(?)')
    .replace(/\s+/g, ' ')
    .trim();
}
