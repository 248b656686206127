import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import type { SubscriptionChangeActivities } from '../activities/subscription-changes.ts';
import type { SubscriptionActivities } from '../activities/subscriptions.ts';
import type { LifecycleState } from '../commerce/subscriptions/lifecycle.ts';
import type { RenewalRetryOutcome, SubscriptionSchedule } from '../domain/subscription-schedule.ts';
import { refusalFromWorkflowFailure } from '../processes/activity-errors.ts';
import { paymentOutcomeSignal } from '../processes/payment-outcome.ts';
import {
  changeSubscriptionUpdate,
  clockAdvancedSignal,
  dunningActionUpdate,
  retryRenewalUpdate,
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
  | 'retryRenewalPayment'
  | 'settleRenewalRetry'
  | 'abandonRenewalRetry'
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

/** The schedule once the billed period is paid: the next one begun, dunning cleared. */
const paidSchedule = (schedule: SubscriptionSchedule): SubscriptionSchedule => ({
  ...schedule,
  status: 'active',
  currentPeriodStart: schedule.currentPeriodEnd ?? schedule.currentPeriodStart,
  currentPeriodEnd: '2030-03-01T00:00:00.000Z',
  pastDueAt: null,
  dunningAttempts: 0,
  nextPaymentAttemptAt: null,
  lastPaymentError: null,
});

/** How a retry outside the dunning schedule goes, by its number (1 the first). */
type RetryAnswer = RenewalRetryOutcome['status'];

/**
 * Activities answering as the database would for one subscription whose schedule `current()`
 * holds; `renew` says how each charge attempt goes, `retry` each retry outside the schedule.
 */
function replayActivities(
  current: { schedule: SubscriptionSchedule },
  renew: (attempt: number) => 'paid' | 'declined',
  retry: (count: number) => RetryAnswer = () => 'failed',
): ReplayActivities {
  const apply = (schedule: SubscriptionSchedule) => {
    current.schedule = schedule;
    return stateOf(schedule);
  };
  let retries = 0;
  const declined = { code: 'generic_decline', message: 'Your card was declined.' };
  /** A retry's result: paid moves the schedule on; anything else leaves dunning as it was. */
  const retried = (status: RetryAnswer, paymentId: string) => ({
    outcome: {
      status,
      clientSecret: status === 'requires_action' ? `pi_replay_secret_${paymentId}` : null,
      error: status === 'failed' ? declined : null,
    },
    orderId: 'replay-order',
    paymentId,
    paymentIntentId: `pi_replay_${paymentId}`,
    paymentMethodId: 'pm_card_visa',
    state:
      status === 'succeeded' ? apply(paidSchedule(current.schedule)) : stateOf(current.schedule),
  });
  return {
    retryRenewalPayment: async () => {
      retries += 1;
      return retried(retry(retries), `replay-retry-${retries}`);
    },
    settleRenewalRetry: async ({ outcome }) =>
      retried(outcome.status, outcome.paymentId ?? 'replay-retry'),
    abandonRenewalRetry: async ({ paymentId }) => retried('failed', paymentId),
    loadSubscriptionState: async () => stateOf(current.schedule),
    renewSubscription: async ({ attempt }) => {
      const { schedule } = current;
      const outcome = renew(attempt);
      const state =
        outcome === 'paid'
          ? apply(paidSchedule(schedule))
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

/** Sends an update, again while the workflow answers that a renewal or a charge runs. */
async function whenUnlocked<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      const code = refusalFromWorkflowFailure(error)?.code ?? '';
      const locked =
        error instanceof WorkflowUpdateFailedError &&
        ['SubscriptionLocked', 'PaymentAlreadyInProgress'].includes(code);
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
  retry: Parameters<typeof replayActivities>[2],
  drive: (handle: {
    advance: (frozenTime: string) => Promise<void>;
    waitFor: (kind: string) => Promise<void>;
    handle: WorkflowHandle<typeof subscription>;
  }) => Promise<void>,
): Promise<string> {
  const workflowId = `replay:${name}`;
  const taskQueue = `replay-${name}`;
  const activities = replayActivities({ schedule: january }, renew, retry);
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
    undefined,
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
    undefined,
    async ({ advance, waitFor, handle }) => {
      await advance('2030-02-01T00:00:00.000Z');
      await waitFor('payment_retry');
      await whenUnlocked(() => handle.executeUpdate(dunningActionUpdate, { args: ['retry_now'] }));
    },
  );

/** Cancels at period end and moves the clock past it: the recording's workflow ends. */
async function cancelAndEnd(
  handle: WorkflowHandle<typeof subscription>,
  advance: (frozenTime: string) => Promise<void>,
) {
  await whenUnlocked(() =>
    handle.executeUpdate(changeSubscriptionUpdate, {
      args: [
        { kind: 'cancel_at_period_end', cancelAtPeriodEnd: true, reason: null, comment: null },
      ],
    }),
  );
  await advance('2030-03-01T00:00:00.000Z');
}

/**
 * Retries outside the dunning schedule (the `retries-outside-schedule-keep-it` patch): the
 * renewal is declined, finance's retry now is declined too (the schedule kept), the customer's
 * retry from the portal with a new card pays it; then canceled at period end, it ends.
 */
export const recordSubscriptionRetriesKeepSchedule = (client: Client) =>
  recordSubscription(
    client,
    'subscription-retries-keep-schedule',
    () => 'declined',
    (count) => (count === 1 ? 'failed' : 'succeeded'),
    async ({ advance, waitFor, handle }) => {
      await advance('2030-02-01T00:00:00.000Z');
      await waitFor('payment_retry');
      await whenUnlocked(() => handle.executeUpdate(dunningActionUpdate, { args: ['retry_now'] }));
      await whenUnlocked(() =>
        handle.executeUpdate(retryRenewalUpdate, {
          args: [{ orderId: 'replay-order', paymentMethod: 'pm_card_visa' }],
        }),
      );
      await cancelAndEnd(handle, advance);
    },
  );

/**
 * The customer authenticates a renewal their bank held back: their retry waits for the 3-D
 * Secure step (requires_action), the webhook's word settles it paid; then it ends.
 */
export const recordSubscriptionAuthenticatedRetry = (client: Client) =>
  recordSubscription(
    client,
    'subscription-authenticated-retry',
    () => 'declined',
    () => 'requires_action',
    async ({ advance, waitFor, handle }) => {
      await advance('2030-02-01T00:00:00.000Z');
      await waitFor('payment_retry');
      const pending = await whenUnlocked(() =>
        handle.executeUpdate(retryRenewalUpdate, {
          args: [{ orderId: 'replay-order', paymentMethod: null }],
        }),
      );
      if (pending.status !== 'requires_action') throw new Error(`answered ${pending.status}`);
      await handle.signal(paymentOutcomeSignal, {
        paymentId: 'replay-retry-1',
        paymentIntentId: 'pi_replay',
        status: 'succeeded',
        declineCode: null,
        message: null,
        cardBrand: 'visa',
        cardLast4: '3184',
      });
      await waitFor('renewal');
      await cancelAndEnd(handle, advance);
    },
  );

/**
 * Twelve monthly renewals due at once (the clock advanced a year), then the run continues as new
 * in a workflow task of its own (the `continue-as-new-in-a-task-of-its-own` patch). The history
 * is the first run's, the one that continued.
 */
export async function recordSubscriptionContinuedAsNew(
  client: Client,
): Promise<{ workflowId: string; runId: string }> {
  const name = 'subscription-continued-as-new';
  const workflowId = `replay:${name}`;
  const taskQueue = `replay-${name}`;
  const current = { schedule: january };
  const monthAfter = (iso: string) => {
    const date = new Date(iso);
    date.setUTCMonth(date.getUTCMonth() + 1);
    return date.toISOString();
  };
  const activities: ReplayActivities = {
    ...replayActivities(current, () => 'paid'),
    renewSubscription: async ({ attempt }) => {
      const end = current.schedule.currentPeriodEnd ?? current.schedule.currentPeriodStart;
      current.schedule = {
        ...current.schedule,
        currentPeriodStart: end,
        currentPeriodEnd: monthAfter(end),
      };
      return {
        outcome: 'paid',
        orderId: `replay-order-${end}`,
        paymentId: `replay-payment-${end}-${attempt}`,
        paymentError: null,
        state: stateOf(current.schedule),
      };
    },
  };
  let runId = '';
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    const handle = await client.workflow.start(subscription, {
      workflowId,
      taskQueue,
      args: [{ subscriptionId: 'replay-subscription' }],
    });
    runId = handle.firstExecutionRunId;
    await handle.signal(clockAdvancedSignal, {
      testClockId,
      frozenTime: '2031-01-01T00:00:00.000Z',
    });
    // The first run has continued once a later one runs; that one waits for the next month.
    while ((await handle.describe()).runId === runId) await sleep(50);
    await handle.terminate('recorded');
  });
  return { workflowId, runId };
}
