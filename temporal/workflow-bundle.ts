import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { projectRoot } from '../config/env.ts';

/** The modules of every workflow: the bundle's entry. */
export const workflowsPath = join(import.meta.dirname, '..', 'workflows', 'index.ts');

const bundleDirectory = join(projectRoot, '.data', 'workflow-bundles');

/**
 * The workflows bundled once per version of their code and kept in .data/workflow-bundles: a
 * worker started again (each copy of a pool, a restart after a crash, the next `npm start`)
 * loads the file instead of spending seconds of CPU on webpack before it takes its first task.
 * The file is named by a hash of every module the bundle can hold (the entry and the interceptor
 * modules, followed through their relative imports) and of the installed packages
 * (package-lock.json), so a change to any of them makes a new bundle.
 */
export async function cachedWorkflowBundle({
  entry = workflowsPath,
  interceptorModules = [] as string[],
} = {}): Promise<{ codePath: string } | { code: string }> {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(projectRoot, 'package-lock.json')));
  for (const module of interceptorModules) hash.update(`interceptor ${module}\n`);
  for (const file of relativeImportClosure(entry)) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(file));
  }
  const codePath = join(bundleDirectory, `${hash.digest('hex').slice(0, 32)}.js`);
  if (existsSync(codePath)) {
    // Marked as in use: the bundles of old code versions are removed after a week unused.
    const now = new Date();
    try {
      utimesSync(codePath, now, now);
    } catch {
      // A read-only file system (a container's image): the bundle is used all the same.
    }
    return { codePath };
  }
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: interceptorModules,
    logger: new DefaultLogger('WARN'),
  });
  try {
    // Written aside and renamed: a worker starting meanwhile never reads half a bundle.
    mkdirSync(bundleDirectory, { recursive: true });
    removeStaleBundles();
    const partial = `${codePath}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, codePath);
    return { codePath };
  } catch {
    // Nowhere to keep it (a read-only file system): this process runs it from memory.
    return { code };
  }
}

/** Bundles not used for a week: a developer's tree makes one per change to the workflows. */
function removeStaleBundles() {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  for (const name of readdirSync(bundleDirectory)) {
    const file = join(bundleDirectory, name);
    if (statSync(file).mtimeMs < weekAgo) rmSync(file, { force: true });
  }
}

/** The project's modules reachable from `entry` by relative imports (`import type` included). */
function relativeImportClosure(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [resolve(entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(
      /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    )) {
      if (specifier) pending.push(resolve(dirname(file), specifier));
    }
  }
  return [...seen].sort();
}
