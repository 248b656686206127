import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Subscription, TestClock } from '../../db/entities/index.ts';
import { findPage, type ListQuery } from '../../db/listing.ts';
import { commerceError, invalidFields, resourceNotFound } from '../errors.ts';
import {
  maximumAdvanceYears,
  type TestClockAdvanceInput,
  type TestClockCreateInput,
  type testClockSortFields,
} from './schemas.ts';

type TestClockSortField = (typeof testClockSortFields)[number];

/**
 * The subscriptions a clock still drives: every one but those that ended (canceled) or never
 * began (incomplete_expired). Their workflows wait on the clock's time.
 */
export const liveOnClock = (testClockId: string) => ({
  testClock: testClockId,
  status: { $nin: ['canceled', 'incomplete_expired'] as Subscription['status'][] },
});

export async function createTestClock(
  em: EntityManager,
  organizationId: string,
  input: TestClockCreateInput,
): Promise<TestClock> {
  const clock = em.create(TestClock, {
    organization: organizationId,
    name: input.name,
    frozenTime: input.frozen_time ?? new Date(),
    status: 'ready',
  });
  await em.flush();
  return clock;
}

/** A clock of the organization; other organizations' are not found. */
export async function getTestClock(
  em: EntityManager,
  organizationId: string,
  id: string,
  lockMode?: LockMode,
): Promise<TestClock> {
  const clock = await em.findOne(TestClock, { id, organization: organizationId }, { lockMode });
  if (!clock) throw resourceNotFound('Test clock not found');
  return clock;
}

export function listTestClocks(
  em: EntityManager,
  organizationId: string,
  { sorting, page }: ListQuery<object, TestClockSortField>,
): Promise<[TestClock[], number]> {
  return findPage(em, TestClock, {
    where: [{ organization: organizationId }],
    sorting,
    sortKeys: { created_at: 'createdAt', frozen_time: 'frozenTime', name: 'name' },
    page,
  });
}

/**
 * Deletes a clock that drives no live subscription (409 TestClockInUse otherwise: their
 * workflows wait on its time, and nothing else would wake them). Its customers, and its ended
 * subscriptions, fall back to real time (the foreign keys set null).
 */
export function deleteTestClock(em: EntityManager, organizationId: string, id: string) {
  return em.transactional(async (tx) => {
    const clock = await getTestClock(tx, organizationId, id, LockMode.PESSIMISTIC_WRITE);
    if (await tx.count(Subscription, liveOnClock(clock.id))) {
      throw commerceError('TestClockInUse');
    }
    tx.remove(clock);
  });
}

/** The latest instant one advance may reach from `frozenTime`. */
function advanceLimit(frozenTime: Date): Date {
  const limit = new Date(frozenTime);
  limit.setUTCFullYear(limit.getUTCFullYear() + maximumAdvanceYears);
  return limit;
}

/**
 * Moves a ready clock forward (422 unless later than its frozen time and within
 * `maximumAdvanceYears`; 409 TestClockAdvancing while a previous advance still wakes its
 * subscriptions) and marks it advancing. `startAdvance` starts the workflow that signals the
 * subscriptions and makes the clock ready again; it runs inside the transaction, so a clock
 * whose workflow could not start is never moved (the workflow waits for the commit).
 */
export function advanceTestClock(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: TestClockAdvanceInput,
  startAdvance: (testClockId: string, frozenTime: Date) => Promise<unknown>,
): Promise<TestClock> {
  return em.transactional(async (tx) => {
    const clock = await getTestClock(tx, organizationId, id, LockMode.PESSIMISTIC_WRITE);
    if (clock.status === 'advancing') throw commerceError('TestClockAdvancing');
    const target = input.frozen_time;
    const loc = ['body', 'frozen_time'];
    if (target.getTime() <= clock.frozenTime.getTime()) {
      throw invalidFields([
        { loc, msg: 'Must be later than the clock’s current frozen time.', type: 'value_error' },
      ]);
    }
    if (target.getTime() > advanceLimit(clock.frozenTime).getTime()) {
      throw invalidFields([
        {
          loc,
          msg: `Must be at most ${maximumAdvanceYears} years after the clock’s current frozen time.`,
          type: 'value_error',
        },
      ]);
    }
    clock.frozenTime = target;
    clock.status = 'advancing';
    await tx.flush();
    await startAdvance(clock.id, target);
    return clock;
  });
}

/**
 * The clock's advance to `frozenTime` is done: every live subscription was signalled. A clock
 * moved elsewhere meanwhile is left as it is.
 */
export async function markTestClockReady(
  em: EntityManager,
  testClockId: string,
  frozenTime: Date,
): Promise<void> {
  await em.nativeUpdate(
    TestClock,
    { id: testClockId, frozenTime, status: 'advancing' },
    { status: 'ready', modifiedAt: new Date() },
  );
}

/** The id of the organization's clock a new customer follows; another's or none is refused (422). */
export async function attachableTestClockId(
  em: EntityManager,
  organizationId: string,
  testClockId: string,
): Promise<string> {
  if (!(await em.count(TestClock, { id: testClockId, organization: organizationId }))) {
    throw invalidFields([
      { loc: ['body', 'test_clock_id'], msg: 'Test clock does not exist.', type: 'value_error' },
    ]);
  }
  return testClockId;
}
