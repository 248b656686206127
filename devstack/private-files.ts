import { chmodSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Logs and captured mail hold reset links, client secrets and tokens: only their owner may
 * read them. Modes are set again on what already exists, which an earlier version made open.
 */
export function ensurePrivateDirectory(path: string): void {
  // Only the folder itself is private: a data folder made on the way must stay passable, or
  // the embedded PostgreSQL, run as its own user when we are root, cannot reach its cluster.
  mkdirSync(dirname(path), { recursive: true });
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/** Opens `file` for appending, readable and writable by its owner only. */
export function openPrivateLog(file: string): number {
  const descriptor = openSync(file, 'a', 0o600);
  fchmodSync(descriptor, 0o600);
  return descriptor;
}
