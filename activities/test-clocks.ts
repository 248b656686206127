import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { liveOnClock, markTestClockReady } from '../commerce/test-clocks/service.ts';
import { Subscription, TestClock } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { signalClockAdvanced } from '../processes/starters.ts';
import type { TestClockAdvance } from '../processes/test-clock-advance.ts';
import { taskQueues } from '../temporal/task-queues.ts';

/**
 * The subscriptions an advance signals: those the clock drives, but an `incomplete` one, whose
 * workflow its checkout starts once it is paid (one started before would never hear of it).
 */
const signalled = (testClockId: string) => ({
  ...liveOnClock(testClockId),
  status: { $nin: ['canceled', 'incomplete_expired', 'incomplete'] as Subscription['status'][] },
});

/**
 * Subscriptions read per page (one heartbeat each), and signals in flight at once: a signal
 * waits on Temporal's answer far longer than it costs, so many go at once (64 signalled a busy
 * worker's subscriptions slower than it renewed them).
 */
const pageSize = 1_000;
const signalsInFlight = 256;

/** Runs `task` over `items` with at most `limit` at once; the first failure fails the whole. */
async function eachWithConcurrency<T>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * The steps of the test clock advance workflow (workflows/test-clock-advance.ts). `taskQueue`:
 * where subscription workflows that are not running are started (tests pass their own).
 */
export function createTestClockActivities(
  { orm, temporal }: { orm: Orm; temporal: Client },
  taskQueue: string = taskQueues.main,
) {
  return {
    /**
     * Fails until the advance's transaction committed (the workflow starts inside it): the
     * clock has reached `frozenTime`. False when the clock is gone.
     */
    async testClockAdvanceCommitted({ testClockId, frozenTime }: TestClockAdvance) {
      const clock = await orm.em.fork().findOne(TestClock, { id: testClockId });
      if (!clock) return false;
      if (clock.frozenTime.getTime() < new Date(frozenTime).getTime()) {
        throw new Error(`test clock ${testClockId} has not (yet) reached ${frozenTime}`);
      }
      return true;
    },

    /**
     * Sends `clockAdvanced` to the workflow of every live subscription on the clock, page by
     * page in id order with a heartbeat per page (a retry resumes after the last page done).
     * A subscription whose workflow does not run is started with the signal, so none misses
     * the new time. Signals may repeat on a retry: a workflow keeps the latest time it got.
     */
    async signalTestClockSubscriptions({ testClockId, frozenTime }: TestClockAdvance) {
      const context = Context.current();
      let after = context.info.heartbeatDetails as string | undefined;
      for (;;) {
        const page = await orm.em
          .fork()
          .find(
            Subscription,
            after ? { ...signalled(testClockId), id: { $gt: after } } : signalled(testClockId),
            { fields: ['id'], orderBy: { id: 'asc' }, limit: pageSize, disableIdentityMap: true },
          );
        await eachWithConcurrency(page, signalsInFlight, ({ id }) =>
          signalClockAdvanced(temporal, id, { testClockId, frozenTime }, taskQueue),
        );
        if (page.length < pageSize) return;
        after = page[page.length - 1]?.id;
        context.heartbeat(after);
      }
    },

    /** Every subscription was signalled: the clock may be advanced again. */
    markTestClockReady({ testClockId, frozenTime }: TestClockAdvance): Promise<void> {
      return markTestClockReady(orm.em.fork(), testClockId, new Date(frozenTime));
    },
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
