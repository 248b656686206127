import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import type { Config } from '../../config/env.ts';
import type { AppDependencies } from '../dependencies.ts';
import { counterKey, type Limit, rateLimitCounter, scaledLimit } from '../middleware/rate-limit.ts';
import { answerTooManyRequests } from './rate-limit.ts';

const minute = 60;

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
 * The per-IP limit of every sign-in (rate-limit.ts) bounds how fast any one address guesses.
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

/** What the sign-in route reports once it has checked the password. */
export interface SignInAttempt {
  /** The right password: this address's failures against the account are forgotten. */
  succeeded(): Promise<void>;
  /** A wrong password (or no such account): it slows the account's next attempts. */
  failed(): Promise<void>;
}

const ignored: SignInAttempt = { succeeded: async () => {}, failed: async () => {} };

const recentFailures = `
  select count from rate_limits
  where key = ? and window_started_at + make_interval(secs => ?) > now()`;

const forgetFailures = 'delete from rate_limits where key = ?';

export function signInThrottle(
  { orm, logger }: Pick<AppDependencies, 'orm' | 'logger'>,
  settings: SignInThrottleSettings,
) {
  const { perAccountAndIp, perAccount } = settings;
  const { count } = rateLimitCounter(
    { orm, logger },
    Math.max(perAccountAndIp.windowSeconds, perAccount.windowSeconds),
  );
  const connection = orm.em.getConnection();
  // The per-account counter only counts: its failures slow down, they never refuse.
  const countOnly = { max: Number.MAX_SAFE_INTEGER, windowSeconds: perAccount.windowSeconds };

  return {
    /**
     * Before the password of `email` is checked: answers 429 and null when this address may not
     * try this account now; else waits the account's delay and answers the attempt to report.
     */
    async admit(ctx: Context, email: string): Promise<SignInAttempt | null> {
      if (!settings.enabled) return ignored;
      const account = email.toLowerCase();
      const fromHereKey = counterKey('signInFailures', 'account-ip', `${account} ${ctx.ip}`);
      const accountKey = counterKey('signInFailures', 'account', account);
      // Counted as a failure until it proves otherwise, so that guesses sent at once cannot all
      // slip under the limit.
      const wait = await count(fromHereKey, perAccountAndIp);
      if (wait !== null) {
        answerTooManyRequests(ctx, logger, {
          rule: 'signInFailures',
          limitedBy: 'account and ip',
          seconds: wait,
        });
        return null;
      }
      const [row] = await connection.execute<{ count: number }[]>(recentFailures, [
        accountKey,
        perAccount.windowSeconds,
      ]);
      const delay = signInDelayMs(row?.count ?? 0, perAccount);
      if (delay) await sleep(delay);
      return {
        async succeeded() {
          await connection.execute(forgetFailures, [fromHereKey], 'run');
        },
        async failed() {
          await count(accountKey, countOnly);
        },
      };
    },
  };
}
