import type { Context, Middleware } from 'koa';
import type { Config } from '../../config/env.ts';
import type { Logger } from '../../config/logger.ts';
import type { AppDependencies } from '../dependencies.ts';
import { counterKey, type Limit, rateLimitCounter, scaledLimit } from '../middleware/rate-limit.ts';
import { presentedSessionToken } from './session-context.ts';
import type { AuthSettings } from './settings.ts';

export type { Limit };

export interface RateLimitRule {
  /** Paths under /api/auth the rule counts, each with its sub-paths. */
  paths: string[];
  perIp: Limit;
  /** Per account: the email in the body, or for signed-in calls the session they present. */
  perAccount?: Limit & { account: 'email' | 'session' };
}

const minute = 60;
const hour = 60 * minute;

/**
 * The production limits. Better Auth's default (3 requests per 10 s per IP and path) locks
 * out a household or office behind one address and barely slows a patient attacker; these
 * count per account, where guessing happens, with room for a shared address:
 *
 * - sign-in: 30 per IP per minute; per account only failures count (sign-in-throttle.ts), so
 *   nobody can lock an owner out by spending the account's allowance;
 * - sign-up: 5 per email per hour, 20 per IP per 10 min (each one costs a password hash);
 * - password-reset mail: 3 per email per hour (no mailbox flooding), 10 per IP per 15 min;
 * - resetting with a token: 20 per IP per 15 min;
 * - verification mail: 3 per email per hour, 10 per IP per 15 min;
 * - change-password: 5 per session per 15 min (guessing the current password), 20 per IP per
 *   15 min; change-email: 5 per session per hour, 20 per IP per 15 min.
 */
const productionRules = {
  signIn: {
    paths: ['/sign-in/email', '/sign-in/social'],
    perIp: { max: 30, windowSeconds: minute },
  },
  signUp: {
    paths: ['/sign-up/email'],
    perIp: { max: 20, windowSeconds: 10 * minute },
    perAccount: { account: 'email', max: 5, windowSeconds: hour },
  },
  passwordResetMail: {
    paths: ['/request-password-reset', '/forget-password'],
    perIp: { max: 10, windowSeconds: 15 * minute },
    perAccount: { account: 'email', max: 3, windowSeconds: hour },
  },
  passwordReset: {
    paths: ['/reset-password'],
    perIp: { max: 20, windowSeconds: 15 * minute },
  },
  verificationMail: {
    paths: ['/send-verification-email'],
    perIp: { max: 10, windowSeconds: 15 * minute },
    perAccount: { account: 'email', max: 3, windowSeconds: hour },
  },
  changePassword: {
    paths: ['/change-password'],
    perIp: { max: 20, windowSeconds: 15 * minute },
    perAccount: { account: 'session', max: 5, windowSeconds: 15 * minute },
  },
  changeEmail: {
    paths: ['/change-email'],
    perIp: { max: 20, windowSeconds: 15 * minute },
    perAccount: { account: 'session', max: 5, windowSeconds: hour },
  },
} satisfies Record<string, RateLimitRule>;

export type RateLimitRules = typeof productionRules;
export type RateLimitRuleName = keyof RateLimitRules;

export interface RateLimitSettings {
  enabled: boolean;
  rules: RateLimitRules;
}

/** The production rules with every maximum multiplied by the configured scale (at least 1). */
export function rateLimitSettings({
  enabled,
  scale,
}: Config['auth']['rateLimit']): RateLimitSettings {
  const scaled = <L extends Limit>(limit: L): L => scaledLimit(limit, scale);
  const rules = Object.fromEntries(
    Object.entries(productionRules).map(([name, rule]: [string, RateLimitRule]) => [
      name,
      {
        ...rule,
        perIp: scaled(rule.perIp),
        ...(rule.perAccount ? { perAccount: scaled(rule.perAccount) } : {}),
      },
    ]),
  ) as RateLimitRules;
  return { enabled, rules };
}

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
