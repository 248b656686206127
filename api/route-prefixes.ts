import type Router from '@koa/router';
import type { Middleware } from 'koa';

/** What starts a parameter, wildcard, group or escape in a route path (path-to-regexp 8). */
const patternStart = /[:*{}()[\]+?!\\]/;

/**
 * What every path a route of `router` matches starts with: the literal text of each route's
 * path before its first parameter, lowercased (routes ignore ASCII case). A RegExp route may
 * match anything: ''. Middleware layers are left out: a router runs them only for a route.
 */
export function routePrefixes(router: Router): string[] {
  const prefixes = new Set<string>();
  for (const layer of router.stack) {
    if (layer.methods.length === 0) continue;
    const { path } = layer;
    if (typeof path !== 'string' || layer.opts.pathAsRegExp) {
      prefixes.add('');
      continue;
    }
    const literalEnd = path.search(patternStart);
    prefixes.add((literalEnd === -1 ? path : path.slice(0, literalEnd)).toLowerCase());
  }
  return [...prefixes];
}

/**
 * `router.routes()`, passed over for a path none of its routes can match: a request is tested
 * against the routes of the routers its path can reach, not against every route of the app.
 * A router given a path it has no route for only notes what it matched (nothing here reads
 * that) and calls `next`.
 */
export function routesFor(router: Router): Middleware {
  const escaped = routePrefixes(router).map((prefix) =>
    prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  const reachable = new RegExp(`^(?:${escaped.join('|')})`, 'i');
  // Typed for a context that already has `params`: the router sets them itself.
  const routes = router.routes() as unknown as Middleware;
  return (ctx, next) => (reachable.test(ctx.path) ? routes(ctx, next) : next());
}
