import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import { type SignInThrottleSettings, signInDelayMs } from '../../accounts/rate-limit-settings.ts';
import type { AppDependencies } from '../dependencies.ts';
import { counterKey, rateLimitCounter } from '../middleware/rate-limit.ts';
import { answerTooManyRequests } from './rate-limit.ts';

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
