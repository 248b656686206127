import type { EntityManager } from '@mikro-orm/postgresql';
import type { Subscription } from '../../db/entities/index.ts';
import type { SubscriptionSchedule } from '../../domain/subscription-schedule.ts';

const iso = (instant: Date | null | undefined) => instant?.toISOString() ?? null;

/**
 * What the subscription workflow reads of its row (its test clock loaded with it): the state
 * and the instants it waits for.
 */
export async function scheduleOf(
  em: EntityManager,
  subscription: Subscription,
): Promise<SubscriptionSchedule> {
  const clock = subscription.testClock ? await em.populate(subscription, ['testClock']) : null;
  const testClock = clock?.testClock;
  return {
    status: subscription.status,
    currentPeriodStart: subscription.currentPeriodStart.toISOString(),
    currentPeriodEnd: iso(subscription.currentPeriodEnd),
    trialEnd: iso(subscription.trialEnd),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    pastDueAt: iso(subscription.pastDueAt),
    dunningAttempts: subscription.dunningAttempts,
    nextPaymentAttemptAt: iso(subscription.nextPaymentAttemptAt),
    lastPaymentError: subscription.lastPaymentError ?? null,
    testClock: testClock
      ? { id: testClock.id, frozenTime: testClock.frozenTime.toISOString() }
      : null,
  };
}

/**
 * "Now" for the subscription's business instants (cancellation, past due, proration): its test
 * clock's frozen time in a sandbox, real time otherwise.
 */
export async function subscriptionNow(
  em: EntityManager,
  subscription: Subscription,
): Promise<Date> {
  if (!subscription.testClock) return new Date();
  await em.populate(subscription, ['testClock']);
  return subscription.testClock.frozenTime;
}
