import type { ChangeListener, ChangeTopic } from '../../db/change-notifications.ts';

interface Entry<Value> {
  value: Value;
  storedAt: number;
}

/**
 * A per-process cache of read results, grouped by scope (an organization, a token hash) and
 * dropped per scope when a change to it is announced (db/change-notifications.ts). It serves
 * only while the change listener is connected.
 *
 * A read racing a change must not store what it read before the change: `read` notes the
 * scope's generation before loading and stores only if no change arrived meanwhile.
 */
export class ReadCache<Value> {
  private readonly entries = new Map<string, Map<string, Entry<Value>>>();
  private readonly generations = new Map<string, number>();
  /** Moves on whenever notifications may have been missed: reads begun before it store nothing. */
  private epoch = 0;
  private readonly listener: ChangeListener | undefined;
  private readonly maxAgeMs: number;
  private readonly maxKeysPerScope: number;
  private readonly maxScopes: number;

  constructor(
    listener: ChangeListener | undefined,
    topic: ChangeTopic,
    limits: { maxAgeMs: number; maxKeysPerScope: number; maxScopes: number },
  ) {
    this.listener = listener;
    this.maxAgeMs = limits.maxAgeMs;
    this.maxKeysPerScope = limits.maxKeysPerScope;
    this.maxScopes = limits.maxScopes;
    listener?.onChange((changed, announced) => {
      if (changed !== topic) return;
      // `scope/key` names one entry; a bare scope, all of it.
      const [scope = '', key] = announced.split('/', 2);
      this.invalidate(scope, key);
    });
    listener?.onReset(() => {
      this.epoch++;
      this.entries.clear();
    });
  }

  /**
   * The cached value of `key` in `scope`, or what `load` answers, stored when still current and
   * `worthKeeping` (e.g. not for unknown tokens, which anyone can make up by the million).
   */
  async read(
    scope: string,
    key: string,
    load: () => Promise<Value>,
    worthKeeping: (value: Value) => boolean = () => true,
  ): Promise<Value> {
    if (!this.listener?.connected) return load();
    const cached = this.entries.get(scope)?.get(key);
    if (cached && Date.now() - cached.storedAt < this.maxAgeMs) return cached.value;
    const generation = this.generations.get(scope) ?? 0;
    const epoch = this.epoch;
    const value = await load();
    const current = (this.generations.get(scope) ?? 0) === generation && this.epoch === epoch;
    if (current && this.listener.connected && worthKeeping(value)) {
      let scoped = this.entries.get(scope);
      if (!scoped) {
        // Bounded: the most recent scopes and keys only (a Map iterates oldest first).
        if (this.entries.size >= this.maxScopes) dropOldest(this.entries);
        scoped = new Map();
        this.entries.set(scope, scoped);
      }
      if (scoped.size >= this.maxKeysPerScope) dropOldest(scoped);
      scoped.set(key, { value, storedAt: Date.now() });
    }
    return value;
  }

  /**
   * Drops a scope, or one key of it. Announced changes arrive here from PostgreSQL after commit; the process
   * that made a change also calls this itself once its transaction committed, so its own next
   * read cannot beat the notification.
   */
  invalidate(scope: string, key?: string) {
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
    if (key === undefined) this.entries.delete(scope);
    else this.entries.get(scope)?.delete(key);
  }
}

function dropOldest(map: Map<string, unknown>) {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}
