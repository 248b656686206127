import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Config } from '../../config/env.ts';
import type { AppDependencies } from '../dependencies.ts';
import { presentedSessionToken } from './session-context.ts';
import type { AuthSettings } from './settings.ts';

export interface Limit {
  max: number;
  windowSeconds: number;
}

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
 * - sign-in: 10 per account per 15 min (40 an hour, under NIST 800-63B's 100 failed attempts),
 *   30 per IP per minute;
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
    perAccount: { account: 'email', max: 10, windowSeconds: 15 * minute },
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
  const scaled = <L extends Limit>(limit: L): L => ({
    ...limit,
    max: Math.max(1, Math.round(limit.max * scale)),
  });
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

/** How often each API process deletes the counters of windows long over. */
const cleanupIntervalMs = 60_000;

/**
 * Fixed-window counters in PostgreSQL (table rate_limits), so every API process counts against
 * the same numbers. One statement per check: it starts a new window when there is none or the
 * last one is over, otherwise adds one, and answers the count and the seconds left, all on the
 * database's clock.
 */
const countRequest = `
  insert into rate_limits as counter (key, count, window_started_at)
  values (?, 1, now())
  on conflict (key) do update set
    count = case
      when counter.window_started_at + make_interval(secs => ?) <= now() then 1
      else counter.count + 1
    end,
    window_started_at = case
      when counter.window_started_at + make_interval(secs => ?) <= now() then now()
      else counter.window_started_at
    end
  returning
    count,
    ceil(extract(epoch from counter.window_started_at + make_interval(secs => ?) - now()))::int
      as seconds_left`;

const deleteEndedWindows = `
  delete from rate_limits where window_started_at < now() - make_interval(secs => ?)`;

const authPrefix = '/api/auth';

/** Keys hold a digest of the IP or account: bounded in length, and no addresses at rest. */
const counterKey = (rule: RateLimitRuleName, scope: 'ip' | 'account', subject: string) =>
  `${rule}:${scope}:${createHash('sha256').update(subject).digest('base64url')}`;

function accountOf(ctx: Context, account: 'email' | 'session', settings: AuthSettings) {
  if (account === 'session') return presentedSessionToken(ctx, settings);
  const email = (ctx.request.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.toLowerCase() : null;
}

/**
 * Limits sign-in, sign-up, password reset, verification mail, change-password and
 * change-email per client IP and per account. It runs before the route (and so before any
 * password hash); over a limit the answer is Better Auth's: 429 with
 * `{"message":"Too many requests. Please try again later."}` and the seconds to wait in
 * X-Retry-After (Better Auth's header) and Retry-After (the standard one).
 */
export function authRateLimit(
  { orm, logger }: AppDependencies,
  settings: AuthSettings,
): Middleware {
  const { enabled, rules } = settings.rateLimit;
  if (!enabled) return (_ctx, next) => next();
  const connection = orm.em.getConnection();
  const endedBefore = longestWindowSeconds(rules);
  let lastCleanup = 0;

  /** Counts one request against `key`; answers the seconds to wait when over `limit`. */
  const count = async (key: string, limit: Limit): Promise<number | null> => {
    const [row] = await connection.execute<{ count: number; seconds_left: number }[]>(
      countRequest,
      [key, limit.windowSeconds, limit.windowSeconds, limit.windowSeconds],
    );
    if (!row || row.count <= limit.max) return null;
    return Math.max(1, row.seconds_left);
  };

  // Expired counters are harmless (the next request restarts them) but would pile up: each
  // process clears them now and then, off the request's path.
  const cleanUpNowAndThen = () => {
    if (Date.now() - lastCleanup < cleanupIntervalMs) return;
    lastCleanup = Date.now();
    connection
      .execute(deleteEndedWindows, [endedBefore], 'run')
      .catch((error: unknown) => logger.warn({ err: error }, 'rate limit cleanup failed'));
  };

  const tooManyRequests = (ctx: Context, rule: string, limitedBy: string, seconds: number) => {
    logger.info({ rule, limitedBy, ip: ctx.ip }, 'auth rate limit reached');
    ctx.status = 429;
    ctx.set('X-Retry-After', String(seconds));
    ctx.set('Retry-After', String(seconds));
    ctx.body = { message: tooManyRequestsMessage };
  };

  return async (ctx, next) => {
    const matched = ruleFor(rules, ctx.path.slice(authPrefix.length));
    if (!matched) return next();
    const [name, rule] = matched;
    cleanUpNowAndThen();
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
