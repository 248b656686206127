import type { ChangeListener, ChangeTopic } from '../../db/change-notifications.ts';

interface Entry<Value> {
  value: Value;
  storedAt: number;
}

/** One key's values: a single one, or one per variant (a URL, say) dropped together. */
type Variants<Value> = Map<string, Entry<Value>>;

interface ReadOptions<Value> {
  /** Whether `load`'s answer is kept (not unknown tokens, which anyone can make up by the million). */
  worthKeeping?: (value: Value) => boolean;
  /** One of several values the key holds, all dropped when a change to the key is announced. */
  variant?: string;
}

/**
 * A per-process cache of read results, grouped by scope (an organization, a token hash) and
 * key, and dropped per scope or key when a change to it is announced on one of its topics
 * (db/change-notifications.ts). It serves only while the change listener is connected.
 *
 * A read racing a change must not store what it read before the change: `read` notes the
 * scope's generation before loading and stores only if no change arrived meanwhile.
 */
export class ReadCache<Value> {
  private readonly entries = new Map<string, Map<string, Variants<Value>>>();
  private readonly generations = new Map<string, number>();
  /** Moves on whenever notifications may have been missed: reads begun before it store nothing. */
  private epoch = 0;
  private readonly listener: ChangeListener | undefined;
  private readonly maxAgeMs: number;
  private readonly maxKeysPerScope: number;
  private readonly maxScopes: number;
  private readonly maxVariantsPerKey: number;

  /** With no topic, entries leave only by age, size and lost notifications. */
  constructor(
    listener: ChangeListener | undefined,
    topics: ChangeTopic | readonly ChangeTopic[],
    limits: {
      maxAgeMs: number;
      maxKeysPerScope: number;
      maxScopes: number;
      maxVariantsPerKey?: number;
    },
  ) {
    this.listener = listener;
    this.maxAgeMs = limits.maxAgeMs;
    this.maxKeysPerScope = limits.maxKeysPerScope;
    this.maxScopes = limits.maxScopes;
    this.maxVariantsPerKey = limits.maxVariantsPerKey ?? 1;
    const watched = new Set<ChangeTopic>(typeof topics === 'string' ? [topics] : topics);
    listener?.onChange((changed, announced) => {
      if (!watched.has(changed)) return;
      // `scope/key` names one key; a bare scope, all of it.
      const [scope = '', key] = announced.split('/', 2);
      this.invalidate(scope, key);
    });
    listener?.onReset(() => {
      this.epoch++;
      this.entries.clear();
    });
  }

  /** The cached value of `key` (its `variant`) in `scope`, or what `load` answers, stored when still current. */
  async read(
    scope: string,
    key: string,
    load: () => Promise<Value>,
    { worthKeeping = () => true, variant = '' }: ReadOptions<Value> = {},
  ): Promise<Value> {
    if (!this.listener?.connected) return load();
    const cached = this.entries.get(scope)?.get(key)?.get(variant);
    if (cached && Date.now() - cached.storedAt < this.maxAgeMs) return cached.value;
    const generation = this.generations.get(scope) ?? 0;
    const epoch = this.epoch;
    const value = await load();
    const current = (this.generations.get(scope) ?? 0) === generation && this.epoch === epoch;
    if (current && this.listener.connected && worthKeeping(value)) {
      this.store(scope, key, variant, value);
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

  // Bounded: the most recent scopes, keys and variants only (a Map iterates oldest first).
  private store(scope: string, key: string, variant: string, value: Value) {
    let scoped = this.entries.get(scope);
    if (!scoped) {
      if (this.entries.size >= this.maxScopes) dropOldest(this.entries);
      scoped = new Map();
      this.entries.set(scope, scoped);
    }
    let variants = scoped.get(key);
    if (!variants) {
      if (scoped.size >= this.maxKeysPerScope) dropOldest(scoped);
      variants = new Map();
      scoped.set(key, variants);
    }
    if (variants.size >= this.maxVariantsPerKey && !variants.has(variant)) dropOldest(variants);
    variants.set(variant, { value, storedAt: Date.now() });
  }
}

function dropOldest(map: Map<string, unknown>) {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}
