import { AsyncLocalStorage } from 'node:async_hooks';
import { type EntityManager, RequestContext } from '@mikro-orm/core';

/** A request's own entity manager, forked from `root` the first time the request asks for it. */
class LazyFork {
  private fork: EntityManager | undefined;
  /** While the fork is made: what it asks of its context then is itself, as outside a request. */
  private forking = false;
  private readonly root: EntityManager;

  constructor(root: EntityManager) {
    this.root = root;
  }

  get(name: string): EntityManager | undefined {
    if (name !== this.root.name || this.forking) return undefined;
    if (!this.fork) {
      this.forking = true;
      try {
        // From the root itself: resolving the context here would ask this request again.
        this.fork = this.root.fork({ useContext: true, disableContextResolution: true });
      } finally {
        this.forking = false;
      }
    }
    return this.fork;
  }
}

const requests = new AsyncLocalStorage<LazyFork>();

/**
 * Runs `next` (a request) with an identity map of its own, as MikroORM's `RequestContext.create`
 * does, but forked only when the request first uses the database: answers served from a cache
 * never pay for the fork.
 */
export function withRequestEntityManager<T>(root: EntityManager, next: () => T): T {
  return requests.run(new LazyFork(root), next);
}

/** The entity manager of the request being served (see `withRequestEntityManager`), if any. */
export function requestEntityManager(name = 'default'): EntityManager | undefined {
  return requests.getStore()?.get(name) ?? RequestContext.getEntityManager(name);
}
