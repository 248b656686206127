/**
 * The limits of /api/auth by configuration: per-IP and per-account rules the auth middleware
 * counts (api/auth/rate-limit.ts), and the sign-in throttle (api/auth/sign-in-throttle.ts).
 */
import type { Config } from '../config/env.ts';
import { type Limit, scaledLimit } from '../domain/rate-limits.ts';

const minute = 60;
const hour = 60 * minute;

export interface RateLimitRule {
  /** Paths under /api/auth the rule counts, each with its sub-paths. */
  paths: string[];
  perIp: Limit;
  /** Per account: the email in the body, or for signed-in calls the session they present. */
  perAccount?: Limit & { account: 'email' | 'session' };
}

/**
 * The production limits. Better Auth's default (3 requests per 10 s per IP and path) locks
 * out a household or office behind one address and barely slows a patient attacker; these
 * count per account, where guessing happens, with room for a shared address:
 *
 * - sign-in: 30 per IP per minute; per account only failures count (the sign-in throttle
 *   below), so nobody can lock an owner out by spending the account's allowance;
 * - sign-up: 5 per email per hour, 20 per IP per 10 min (each one costs a password hash);
 * - password-reset mail: 3 per email per hour (no mailbox flooding), 10 per IP per 15 min;
 * - resetting with a token: 20 per IP per 15 min;
 * - verification mail: 3 per email per hour, 10 per IP per 15 min;
 * - change-password: 5 per session per 15 min (guessing the current password), 20 per IP per
 *   15 min; change-email: 5 per session per hour, 20 per IP per 15 min;
 * - subscription/restore: 10 per session per hour, 20 per IP per 15 min;
 * - the configured social providers (what sign-in pages read): 60 per IP per minute.
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
  subscriptionRestore: {
    paths: ['/subscription/restore'],
    perIp: { max: 20, windowSeconds: 15 * minute },
    perAccount: { account: 'session', max: 10, windowSeconds: hour },
  },
  providerList: {
    paths: ['/providers'],
    perIp: { max: 60, windowSeconds: minute },
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

/**
 * Limits on guessing a password with sign-in/email. A limit on every sign-in per account would
 * let anyone lock the owner out by spending it; so only failures count, and what they cost
 * depends on where they come from:
 *
 * - per account and address: past `perAccountAndIp.max` failures in the window, that address
 *   may not try that account again (even with the right password, or it would keep guessing)
 *   until the window ends. The attacker's addresses are shut out; the owner's is not.
 * - per account, from every address: failures never refuse, they slow down. Past
 *   `freeFailures`, each attempt on the account waits before its password is checked, the wait
 *   doubling with each failure up to `maxDelayMs`: an attacker spraying from many addresses
 *   makes guesses slower, and the owner still gets in, at worst after that wait.
 *
 * The per-IP limit of every sign-in (the rules above) bounds how fast any one address guesses.
 * A household behind one address shares its per-account-and-address allowance.
 */
export interface SignInThrottleSettings {
  enabled: boolean;
  perAccountAndIp: Limit;
  perAccount: {
    windowSeconds: number;
    freeFailures: number;
    firstDelayMs: number;
    maxDelayMs: number;
  };
}

/** The production limits; TOLLGATE_AUTH_RATE_LIMIT's factor scales the refusing maximum. */
export function signInThrottleSettings({
  enabled,
  scale,
}: Config['auth']['rateLimit']): SignInThrottleSettings {
  return {
    enabled,
    // 40 an hour from one address: under NIST 800-63B's 100 failed attempts.
    perAccountAndIp: scaledLimit({ max: 10, windowSeconds: 15 * minute }, scale),
    perAccount: {
      windowSeconds: 15 * minute,
      freeFailures: 5,
      firstDelayMs: 250,
      maxDelayMs: 8000,
    },
  };
}

/** The wait before checking a password for an account that failed `failures` times lately. */
export function signInDelayMs(
  failures: number,
  { freeFailures, firstDelayMs, maxDelayMs }: SignInThrottleSettings['perAccount'],
): number {
  if (failures < freeFailures) return 0;
  return Math.min(maxDelayMs, firstDelayMs * 2 ** (failures - freeFailures));
}
