import { RequestContext } from '@mikro-orm/core';
import type { Context } from 'koa';
import type { AppDependencies } from '../dependencies.ts';

/**
 * Runs `work` once the answer has gone out, in a unit of work of its own; a failure is logged,
 * never answered. For routes that must answer alike whether or not an address has an account:
 * what the work finds (and how long looking, writing a token and starting a mail take) cannot
 * shape the answer or its timing when the answer is already sent before the work starts.
 */
export function afterAnswering(
  ctx: Context,
  { orm, logger }: Pick<AppDependencies, 'orm' | 'logger'>,
  what: string,
  work: () => Promise<void>,
): void {
  // 'close' follows the end of the response, and also a client that hung up before it.
  ctx.res.once('close', () => {
    RequestContext.create(orm.em, work).catch((error: unknown) => {
      logger.error({ err: error }, `${what} failed after answering`);
    });
  });
}
