import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TestClockActivities } from '../activities/test-clocks.ts';
import type { TestClockAdvance } from '../processes/test-clock-advance.ts';
import { retryUntilDone } from './activity-options.ts';

// The advance's transaction commits right after starting this workflow: about half a minute of
// attempts, then the workflow ends (a transaction that rolled back moved nothing).
const commits = proxyLocalActivities<TestClockActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumAttempts: 10 },
});

// Signalling pages through up to tens of thousands of subscriptions; a lost worker is noticed
// by the missed heartbeat, and the retry resumes after the last page signalled.
const signals = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: retryUntilDone,
});

const steps = proxyLocalActivities<TestClockActivities>({
  startToCloseTimeout: '30 seconds',
  retry: retryUntilDone,
});

/**
 * A test clock's advance (`test-clock:<clock>:<frozen time>`): wakes the workflow of every live
 * subscription on the clock with its new time, then makes the clock ready again. The renewals
 * the new time makes due then run in the subscriptions' own workflows: a ready clock means
 * every subscription was told, not that every renewal has finished.
 */
export async function testClockAdvance(advance: TestClockAdvance): Promise<void> {
  if (!(await commits.testClockAdvanceCommitted(advance))) return;
  await signals.signalTestClockSubscriptions(advance);
  await steps.markTestClockReady(advance);
}
