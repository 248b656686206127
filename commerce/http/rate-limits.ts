import type { Middleware } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { counterKey, rateLimitCounter } from '../../api/middleware/rate-limit.ts';
import { type Limit, scaledLimit } from '../../domain/rate-limits.ts';
import { commerceError } from '../errors.ts';

const minute = 60;

/**
 * The per-IP limits of the public /v1 routes (those without an organization token), production
 * values. Routes that create something or try a payment are the strictest; reads allow a page
 * that polls and a shared office address. Every window is at most an hour, as auth's are.
 */
const productionLimits = {
  // Each redirect creates a checkout and starts its workflow.
  checkoutLinkRedirect: { max: 20, windowSeconds: 10 * minute },
  // Each confirm is a payment attempt: where stolen cards are tested.
  checkoutConfirm: { max: 10, windowSeconds: 10 * minute },
  // The checkout page's field edits, and discount codes tried.
  checkoutUpdate: { max: 60, windowSeconds: minute },
  checkoutRead: { max: 120, windowSeconds: minute },
  // The hosted checkout page itself, which reads whose checkout (or link) its address names.
  checkoutPage: { max: 120, windowSeconds: minute },
  // Apps validate a key when they start; Polar allows 3 a second per IP.
  licenseKeyValidate: { max: 180, windowSeconds: minute },
  licenseKeyActivation: { max: 30, windowSeconds: 10 * minute },
  // The customer portal with a customer session.
  portalRead: { max: 300, windowSeconds: minute },
  portalWrite: { max: 60, windowSeconds: minute },
  // A signed-in person creating an organization (from their dashboard session).
  organizationCreate: { max: 10, windowSeconds: 10 * minute },
  // An organization's public storefront (customer portal, no session).
  storefrontRead: { max: 120, windowSeconds: minute },
  // Parts PUT to their signed URLs: a 1 GiB file in 10 MB parts is about a hundred.
  fileUpload: { max: 600, windowSeconds: minute },
  // The API reference page (/docs), its assets and the OpenAPI documents: a page load is ~7.
  apiReference: { max: 120, windowSeconds: minute },
  // Public media, downloadables and invoices by signed link.
  download: { max: 300, windowSeconds: minute },
  // The platform sending a customer back after linking a Discord or GitHub account.
  oauthCallback: { max: 30, windowSeconds: 10 * minute },
  // Portal sign-in links asked for: each may mail someone. Per IP, and per address
  // (`portalSignInEmail`, whoever asks) so that nobody's inbox is flooded.
  portalSignInRequest: { max: 10, windowSeconds: 10 * minute },
  portalSignInEmail: { max: 5, windowSeconds: 60 * minute },
  // Mailed links opened: guessing a token is hopeless, but nobody gets to try a lot.
  portalSignInAuthenticate: { max: 30, windowSeconds: 10 * minute },
} satisfies Record<string, Limit>;

export type PublicLimitName = keyof typeof productionLimits;
export type PublicLimits = Record<PublicLimitName, Limit>;

/** The production limits with every maximum scaled (TOLLGATE_AUTH_RATE_LIMIT's factor). */
export const publicLimits = (scale: number): PublicLimits =>
  Object.fromEntries(
    Object.entries(productionLimits).map(([name, limit]) => [name, scaledLimit(limit, scale)]),
  ) as PublicLimits;

type PublicRateLimit = (name: PublicLimitName) => Middleware;

/**
 * Counts one request of `ctx` against limit `name` for `subject` (an address, an account) rather
 * than the IP; over the limit it throws 429 `TooManyRequests` with Retry-After.
 */
type PublicSubjectLimit = (
  ctx: Parameters<Middleware>[0],
  name: PublicLimitName,
  subject: string,
) => Promise<void>;

interface PublicCounters {
  limit: PublicRateLimit;
  limitSubject: PublicSubjectLimit;
}

// One counter per app, whichever area's router asks first.
const countersByApp = new WeakMap<AppDependencies, PublicCounters>();

function publicCounters(dependencies: AppDependencies): PublicCounters {
  const known = countersByApp.get(dependencies);
  if (known) return known;
  const { enabled, scale } = dependencies.config.auth.rateLimit;
  const limits = publicLimits(scale);
  const longestWindow = Math.max(...Object.values(limits).map((limit) => limit.windowSeconds));
  const counter = enabled ? rateLimitCounter(dependencies, longestWindow) : null;
  const count = async (
    ctx: Parameters<Middleware>[0],
    name: PublicLimitName,
    scope: string,
    subject: string,
  ) => {
    if (!counter) return;
    const wait = await counter.count(counterKey(`v1.${name}`, scope, subject), limits[name]);
    if (wait === null) return;
    dependencies.logger.info(
      { rule: name, limitedBy: scope, ip: ctx.ip },
      'public rate limit reached',
    );
    ctx.set('Retry-After', String(wait));
    throw commerceError('TooManyRequests');
  };
  const counters: PublicCounters = {
    limit: (name) => async (ctx, next) => {
      if (ctx.ip) await count(ctx, name, 'ip', ctx.ip);
      return next();
    },
    limitSubject: (ctx, name, subject) => count(ctx, name, 'subject', subject),
  };
  countersByApp.set(dependencies, counters);
  return counters;
}

/**
 * `limit(name)` is a route's middleware counting the client's IP against that limit, in the
 * PostgreSQL counters auth's limits use (api/middleware/rate-limit.ts). It runs before the
 * route and its customer-session check; over the limit it answers 429 in Polar's envelope
 * (`TooManyRequests`) with Retry-After. TOLLGATE_AUTH_RATE_LIMIT turns it off or scales it.
 */
export function publicRateLimit(dependencies: AppDependencies): PublicRateLimit {
  return publicCounters(dependencies).limit;
}

/** The same limits counted per subject (an email address) instead of per IP, inside a route. */
export function publicSubjectRateLimit(dependencies: AppDependencies): PublicSubjectLimit {
  return publicCounters(dependencies).limitSubject;
}
