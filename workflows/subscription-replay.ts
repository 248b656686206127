import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import type { SubscriptionChangeActivities } from '../activities/subscription-changes.ts';
import type { SubscriptionActivities } from '../activities/subscriptions.ts';
import type { LifecycleState } from '../commerce/subscriptions/lifecycle.ts';
import type { SubscriptionSchedule } from '../domain/subscription-schedule.ts';
import { refusalFromWorkflowFailure } from '../processes/activity-errors.ts';
import {
  changeSubscriptionUpdate,
  clockAdvancedSignal,
  dunningActionUpdate,
  subscriptionStateQuery,
} from '../processes/subscription-messages.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';
import { subscription } from './subscription.ts';

type ReplayActivities = Pick<
  SubscriptionActivities,
  | 'loadSubscriptionState'
  | 'renewSubscription'
  | 'settleRenewalPayment'
  | 'endSubscription'
  | 'describeSubscription'
  | 'paymentFailedMail'
> &
  Pick<SubscriptionChangeActivities, 'applySubscriptionChange'> &
  Pick<
    BenefitGrantActivities,
    'requestBenefitCycles' | 'requestBenefitRevocations' | 'requestBenefitGrants'
  > &
  MailActivities;

const testClockId = 'replay-clock';

/** A monthly subscription on a test clock, in January 2030. */
const january: SubscriptionSchedule = {
  status: 'active',
  currentPeriodStart: '2030-01-01T00:00:00.000Z',
  currentPeriodEnd: '2030-02-01T00:00:00.000Z',
  trialEnd: null,
  cancelAtPeriodEnd: false,
  pastDueAt: null,
  dunningAttempts: 0,
  nextPaymentAttemptAt: null,
  lastPaymentError: null,
  testClock: { id: testClockId, frozenTime: '2030-01-01T00:00:00.000Z' },
};

const stateOf = (schedule: SubscriptionSchedule): LifecycleState => ({
  schedule,
  organizationId: 'replay-organization',
  customerId: 'replay-customer',
  productId: 'replay-product',
  hasBenefits: false,
});

/**
 * Activities answering as the database would for one subscription whose schedule `current()`
 * holds; `renew` says how each charge attempt goes.
 */
function replayActivities(
  current: { schedule: SubscriptionSchedule },
  renew: (attempt: number) => 'paid' | 'declined',
): ReplayActivities {
  const apply = (schedule: SubscriptionSchedule) => {
    current.schedule = schedule;
    return stateOf(schedule);
  };
  return {
    loadSubscriptionState: async () => stateOf(current.schedule),
    renewSubscription: async ({ attempt }) => {
      const { schedule } = current;
      const outcome = renew(attempt);
      const state =
        outcome === 'paid'
          ? apply({
              ...schedule,
              status: 'active',
              currentPeriodStart: schedule.currentPeriodEnd ?? schedule.currentPeriodStart,
              currentPeriodEnd: '2030-03-01T00:00:00.000Z',
              pastDueAt: null,
              dunningAttempts: 0,
              nextPaymentAttemptAt: null,
              lastPaymentError: null,
            })
          : apply({
              ...schedule,
              status: 'past_due',
              pastDueAt: schedule.pastDueAt ?? '2030-02-01T00:00:00.000Z',
              dunningAttempts: attempt,
              // One retry, then dunning gives up.
              nextPaymentAttemptAt: attempt === 1 ? '2030-02-03T00:00:00.000Z' : null,
              lastPaymentError: { code: 'insufficient_funds', message: 'Insufficient funds.' },
            });
      const declined = outcome === 'declined';
      return {
        outcome,
        orderId: 'replay-order',
        paymentId: `replay-payment-${attempt}`,
        paymentError: declined ? current.schedule.lastPaymentError : null,
        state,
      };
    },
    settleRenewalPayment: async () => {
      throw new Error('no charge is left undecided in the replay scenarios');
    },
    // Every ending here cancels (the default dunningFinalStatus).
    endSubscription: async () =>
      apply({ ...current.schedule, status: 'canceled', nextPaymentAttemptAt: null }),
    describeSubscription: async () => ({
      subscription: { id: 'replay-subscription', status: current.schedule.status },
      schedule: current.schedule,
    }),
    paymentFailedMail: async ({ mailId }) => ({
      id: mailId,
      to: 'subscriber@example.com',
      subject: 'Replay',
      text: 'Recorded for the replay test.',
      html: '<p>Recorded for the replay test.</p>',
    }),
    sendEmail: async () => ({ messageId: '<replay@tollgate.local>' }),
    applySubscriptionChange: async ({ change }) => {
      if (change.kind !== 'cancel_at_period_end') throw new Error(`no ${change.kind} in replay`);
      apply({ ...current.schedule, cancelAtPeriodEnd: change.cancelAtPeriodEnd });
      return {
        subscription: { id: 'replay-subscription', cancel_at_period_end: true },
        schedule: current.schedule,
      };
    },
    requestBenefitCycles: async () => undefined,
    requestBenefitRevocations: async () => undefined,
    requestBenefitGrants: async () => undefined,
  };
}

/** Sends an update, again while the workflow answers SubscriptionLocked (a renewal runs). */
async function whenUnlocked<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      const locked =
        error instanceof WorkflowUpdateFailedError &&
        refusalFromWorkflowFailure(error)?.code === 'SubscriptionLocked';
      if (!locked) throw error;
      await sleep(100);
    }
  }
}

/**
 * Runs one subscription on a worker of its own until `drive` ended it; the clock moves by
 * signals, as the test clock advance workflow sends them.
 */
async function recordSubscription(
  client: Client,
  name: string,
  renew: Parameters<typeof replayActivities>[1],
  drive: (handle: {
    advance: (frozenTime: string) => Promise<void>;
    waitFor: (kind: string) => Promise<void>;
    handle: WorkflowHandle<typeof subscription>;
  }) => Promise<void>,
): Promise<string> {
  const workflowId = `replay:${name}`;
  const taskQueue = `replay-${name}`;
  const activities = replayActivities({ schedule: january }, renew);
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    const handle = await client.workflow.start(subscription, {
      workflowId,
      taskQueue,
      args: [{ subscriptionId: 'replay-subscription' }],
    });
    const advance = (frozenTime: string) =>
      handle.signal(clockAdvancedSignal, { testClockId, frozenTime });
    const waitFor = async (kind: string) => {
      while ((await handle.query(subscriptionStateQuery)).nextAction.kind !== kind) {
        await sleep(50);
      }
    };
    await drive({ advance, waitFor, handle });
    await handle.result();
  });
  return workflowId;
}

/**
 * A renewal: the clock reaches the period's end, the period is charged and paid, the customer
 * cancels at period end (a change), and the subscription ends when the clock reaches it.
 */
export const recordSubscriptionRenewed = (client: Client) =>
  recordRenewal(client, 'subscription-renewed');

function recordRenewal(client: Client, name: string) {
  return recordSubscription(
    client,
    name,
    () => 'paid',
    async ({ advance, waitFor, handle }) => {
      await advance('2030-02-01T00:00:00.000Z');
      await waitFor('renewal');
      await whenUnlocked(() =>
        handle.executeUpdate(changeSubscriptionUpdate, {
          args: [
            { kind: 'cancel_at_period_end', cancelAtPeriodEnd: true, reason: null, comment: null },
          ],
        }),
      );
      await advance('2030-03-01T00:00:00.000Z');
    },
  );
}

/**
 * The same renewal after its workflow learnt to skip the benefit cycle of a product without
 * benefits (the `cycle-benefits-only-when-granted` patch): no cycle step in its history.
 */
export const recordSubscriptionRenewedWithoutCycle = (client: Client) =>
  recordRenewal(client, 'subscription-renewed-without-cycle');

/**
 * Dunning: the renewal is declined (the customer mailed, a retry scheduled), finance retries
 * at once, declined again with no retry left: the subscription is canceled and revoked.
 */
export const recordSubscriptionDunning = (client: Client) =>
  recordSubscription(
    client,
    'subscription-dunning',
    () => 'declined',
    async ({ advance, waitFor, handle }) => {
      await advance('2030-02-01T00:00:00.000Z');
      await waitFor('payment_retry');
      await whenUnlocked(() => handle.executeUpdate(dunningActionUpdate, { args: ['retry_now'] }));
    },
  );
