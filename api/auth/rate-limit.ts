import type { Context, Middleware } from 'koa';
import type {
  RateLimitRule,
  RateLimitRuleName,
  RateLimitRules,
} from '../../accounts/rate-limit-settings.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import type { Logger } from '../../config/logger.ts';
import type { AppDependencies } from '../dependencies.ts';
import { counterKey, rateLimitCounter } from '../middleware/rate-limit.ts';
import { presentedSessionToken } from './session-context.ts';

const rulesOf = (rules: RateLimitRules) =>
  Object.entries(rules) as [RateLimitRuleName, RateLimitRule][];

/** The longest window of any rule: a counter whose window started before that is over. */
export function longestWindowSeconds(rules: RateLimitRules): number {
  return Math.max(
    ...rulesOf(rules).flatMap(([, rule]) => [
      rule.perIp.windowSeconds,
      rule.perAccount?.windowSeconds ?? 0,
    ]),
  );
}

/**
 * The rule counting a request to `path` (under /api/auth), if any. Like the router, it ignores
 * letter case and a trailing slash, so no spelling of a path routes past its limit.
 */
export function ruleFor(
  rules: RateLimitRules,
  path: string,
): [RateLimitRuleName, RateLimitRule] | undefined {
  const normalized = path.toLowerCase().replace(/\/+$/, '');
  return rulesOf(rules).find(([, rule]) =>
    rule.paths.some((ruled) => normalized === ruled || normalized.startsWith(`${ruled}/`)),
  );
}

export const tooManyRequestsMessage = 'Too many requests. Please try again later.';

/**
 * Better Auth's answer over a limit: 429 with `{"message":"Too many requests. Please try again
 * later."}` and the seconds to wait in X-Retry-After (Better Auth's header) and Retry-After
 * (the standard one).
 */
export function answerTooManyRequests(
  ctx: Context,
  logger: Logger,
  { rule, limitedBy, seconds }: { rule: string; limitedBy: string; seconds: number },
): void {
  logger.info({ rule, limitedBy, ip: ctx.ip }, 'auth rate limit reached');
  ctx.status = 429;
  ctx.set('X-Retry-After', String(seconds));
  ctx.set('Retry-After', String(seconds));
  ctx.body = { message: tooManyRequestsMessage };
}

const authPrefix = '/api/auth';

function accountOf(ctx: Context, account: 'email' | 'session', settings: AuthSettings) {
  if (account === 'session') return presentedSessionToken(ctx, settings);
  const email = (ctx.request.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.toLowerCase() : null;
}

/**
 * Limits sign-in, sign-up, password reset, verification mail, change-password and
 * change-email per client IP and per account. It runs before the route (and so before any
 * password hash); over a limit the answer is Better Auth's (answerTooManyRequests).
 */
export function authRateLimit(
  { orm, logger }: AppDependencies,
  settings: AuthSettings,
): Middleware {
  const { enabled, rules } = settings.rateLimit;
  if (!enabled) return (_ctx, next) => next();
  const { count } = rateLimitCounter({ orm, logger }, longestWindowSeconds(rules));

  const tooManyRequests = (ctx: Context, rule: string, limitedBy: string, seconds: number) =>
    answerTooManyRequests(ctx, logger, { rule, limitedBy, seconds });

  return async (ctx, next) => {
    const matched = ruleFor(rules, ctx.path.slice(authPrefix.length));
    if (!matched) return next();
    const [name, rule] = matched;
    // The IP first: a blocked address does not also use up the account's allowance.
    const ipWait = ctx.ip ? await count(counterKey(name, 'ip', ctx.ip), rule.perIp) : null;
    if (ipWait !== null) return tooManyRequests(ctx, name, 'ip', ipWait);
    const { perAccount } = rule;
    const account = perAccount ? accountOf(ctx, perAccount.account, settings) : null;
    const accountWait =
      perAccount && account ? await count(counterKey(name, 'account', account), perAccount) : null;
    if (accountWait !== null) return tooManyRequests(ctx, name, 'account', accountWait);
    return next();
  };
}
