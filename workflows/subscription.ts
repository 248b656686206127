import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import type { SubscriptionChangeActivities } from '../activities/subscription-changes.ts';
import type {
  LifecycleState,
  RenewalAttempt,
  RenewalPaymentOutcome,
  RenewalResult,
  RenewalRetry,
  RenewalRetryResult,
  SubscriptionActivities,
} from '../activities/subscriptions.ts';
import { retryResultWire } from '../domain/decline-reasons.ts';
import type { PaymentOutcome } from '../domain/payments.ts';
import type { RenewalRetryOutcome, SubscriptionSchedule } from '../domain/subscription-schedule.ts';
import { paymentOutcomeSignal } from '../processes/payment-outcome.ts';
import {
  type BilledPeriod,
  changeSubscriptionUpdate,
  clockAdvancedSignal,
  dunningActionUpdate,
  retryRenewalUpdate,
  type SubscriptionInput,
  type SubscriptionWorkflowState,
  subscriptionStateQuery,
} from '../processes/subscription-messages.ts';
import { commerceRefusal } from '../processes/workflow-refusals.ts';
import { mailActivityOptions, stepOptions } from './activity-options.ts';

// Each step is one transaction (or one read), short and idempotent: local activities, retried
// until the database answers again.
const steps = proxyLocalActivities<
  SubscriptionActivities & SubscriptionChangeActivities & BenefitGrantActivities
>(stepOptions);

// A renewal charges through Stripe: a few attempts (each under the same idempotency key, so a
// retry never charges twice), then the attempt counts as declined (`processor_unavailable`) and
// dunning retries it days later. An attempt (two transactions and two Stripe calls) that takes
// half a minute is hanging.
const renewals = proxyLocalActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
  },
});

// A change asked through the API has a caller waiting: a few quick attempts, then its failure.
const changes = proxyLocalActivities<SubscriptionChangeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 6 },
});

const mail = proxyActivities<MailActivities>(mailActivityOptions);

/** How long a charge Stripe has not decided yet (processing) is waited for. */
const paymentOutcomeTimeout = '30 minutes';

/** A run hands the next one (continue-as-new) at most this many renewals of history. */
const renewalsPerRun = 12;

/**
 * A product without benefits has no grant to cycle: its renewals skip the step. Runs begun
 * before this change ask for the cycle regardless (their histories replay so).
 */
const cycleOnlyGrantingProducts = 'cycle-benefits-only-when-granted';

/**
 * A retry asked outside the dunning schedule (finance's "retry now", the customer's from the
 * portal) charges under its own key and leaves the schedule as it was; runs begun before this
 * change retry finance's as the next scheduled attempt (their histories replay so).
 */
const retriesKeepSchedule = 'retries-outside-schedule-keep-it';

/**
 * The workflow task that continues a run as new carries no renewal: the server refuses a task
 * closing the run while a signal waits, and the local activities' results in it are lost. Were
 * they the renewals due when the run began (loaded in the same task), the retry would load the
 * subscription already renewed and forget the periods it billed. A 1 ms timer ends their task
 * first. Runs begun before this change continue in the renewals' task (their histories replay so).
 */
const continuesInATaskOfItsOwn = 'continue-as-new-in-a-task-of-its-own';

/** The periods the state query shows (and a run carries to the next). */
const periodsKept = 24;

const hasEnded = ({ status }: SubscriptionSchedule) =>
  status === 'canceled' || status === 'incomplete_expired';

const isPastDue = ({ status }: SubscriptionSchedule) =>
  status === 'past_due' || status === 'unpaid';

/** The period a renewal settles: the trial while trialing, else the current period. */
const billedPeriodEnd = (schedule: SubscriptionSchedule) =>
  schedule.status === 'trialing'
    ? (schedule.trialEnd ?? schedule.currentPeriodEnd)
    : schedule.currentPeriodEnd;

/** What the subscription waits to do next, and when. */
function nextActionOf(schedule: SubscriptionSchedule): SubscriptionWorkflowState['nextAction'] {
  switch (schedule.status) {
    case 'trialing':
    case 'active': {
      const at = billedPeriodEnd(schedule);
      if (schedule.cancelAtPeriodEnd) return { kind: 'end', at };
      return { kind: schedule.status === 'trialing' ? 'trial_conversion' : 'renewal', at };
    }
    case 'past_due':
      return { kind: 'payment_retry', at: schedule.nextPaymentAttemptAt };
    default:
      // Unpaid waits for finance; incomplete for its checkout; an ended one for nothing.
      return { kind: 'none', at: null };
  }
}

/**
 * The life of one subscription (`subscription:<id>`), start to end: the trial converts at its
 * end, each period renews at its end (an order, an off-session charge of the saved card), a
 * declined charge is retried on the dunning schedule until it is paid or dunning gives up, and
 * a subscription canceled at period end ends then. Every change asked through the API, and
 * every finance action, runs here too, one at a time: a change never races a renewal. A
 * subscription on a test clock waits on the clock's time instead of real time.
 */
export async function subscription({ subscriptionId, carried }: SubscriptionInput): Promise<void> {
  // Decided once per run, before its first step: the run keeps the behaviour it began with.
  const cyclesOnlyGrantingProducts = patched(cycleOnlyGrantingProducts);
  // Loaded by the first step; the handlers are registered before it, so that a change or a
  // query arriving with the workflow's start is held until then instead of being rejected.
  let schedule!: SubscriptionSchedule;
  let loaded = false;
  const periods: BilledPeriod[] = [...(carried?.periods ?? [])];
  /** The test clock's frozen time (ms); only read when the subscription follows a clock. */
  let clockTime = Date.parse(carried?.clockTime ?? '') || 0;
  /** A renewal, a charge, a change or a finance action runs: others are refused meanwhile. */
  let busy = false;
  /** The schedule changed under the wait (a change, a finance action): plan again. */
  let woken = false;
  const outcomes = new Map<string, PaymentOutcome>();
  const mails = new Set<Promise<void>>();

  /** Takes `next` as the schedule, with the latest clock time heard of (signal or row). */
  function adopt(next: SubscriptionSchedule) {
    schedule = next;
    if (!next.testClock) return;
    clockTime = Math.max(clockTime, Date.parse(next.testClock.frozenTime));
    schedule.testClock = { id: next.testClock.id, frozenTime: new Date(clockTime).toISOString() };
  }

  /** Runs `work` alone: one step at a time changes the subscription. */
  async function exclusively<T>(work: () => Promise<T>): Promise<T> {
    // Checked again after every wake: of two waiters woken together, the first takes it.
    while (busy) await condition(() => !busy);
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  }

  /** Waits until `instant` (by the test clock when there is one); false when woken before. */
  async function waitUntil(instant: string): Promise<boolean> {
    const due = Date.parse(instant);
    if (schedule.testClock) {
      await condition(() => clockTime >= due || woken);
      return !woken;
    }
    return !(await condition(() => woken, Math.max(due - Date.now(), 1)));
  }

  /** Stripe's final word on a processing charge, from the webhook within the timeout. */
  async function decidedOutcome(paymentId: string): Promise<RenewalPaymentOutcome> {
    const decided = () => {
      const status = outcomes.get(paymentId)?.status;
      return status === 'succeeded' || status === 'failed';
    };
    const outcome = (await condition(decided, paymentOutcomeTimeout))
      ? outcomes.get(paymentId)
      : undefined;
    if (outcome?.status === 'succeeded') return { status: 'succeeded', paymentId, error: null };
    return {
      status: 'failed',
      paymentId,
      error: {
        code: outcome?.declineCode ?? 'payment_timeout',
        message: outcome?.message ?? 'The payment was not completed in time.',
      },
    };
  }

  /** Tells the customer the charge failed; a mail that cannot go out does not stop the billing. */
  function mailPaymentFailed(orderId: string, { periodEnd, attempt }: RenewalAttempt) {
    const mailId = `subscription:${subscriptionId}:payment-failed:${periodEnd}:${attempt}`;
    const sending = steps
      .paymentFailedMail({ subscriptionId, orderId, mailId })
      .then((message) => mail.sendEmail(message))
      .then(
        () => {},
        (error: unknown) => log.warn('payment-failed mail not sent', { subscriptionId, error }),
      )
      .finally(() => mails.delete(sending));
    mails.add(sending);
  }

  function revokeBenefits({ customerId, productId }: LifecycleState) {
    return steps.requestBenefitRevocations({ customerId, productId, subscriptionId });
  }

  /** The schedule ended by dunning: unpaid keeps the subscription, without its benefits. */
  async function endDunning() {
    const state = await steps.endSubscription({ subscriptionId, ending: 'dunning_exhausted' });
    adopt(state.schedule);
    if (state.schedule.status === 'unpaid') await revokeBenefits(state);
  }

  /** After the period ending `periodEnd` was paid: benefits follow the new period. */
  async function afterPaid(state: LifecycleState, wasUnpaid: boolean) {
    const { organizationId, customerId, productId } = state;
    if (wasUnpaid) {
      // Revoked when dunning gave up: granted again.
      await steps.requestBenefitGrants({ organizationId, customerId, productId, subscriptionId });
    } else if (!cyclesOnlyGrantingProducts || state.hasBenefits) {
      await steps.requestBenefitCycles({
        customerId,
        subscriptionId,
        periodStart: state.schedule.currentPeriodStart,
      });
    }
  }

  function recordPeriod(
    start: string,
    end: string,
    orderId: string,
    status: BilledPeriod['status'],
  ) {
    const last = periods.at(-1);
    // A retry of the same period replaces its line.
    if (last?.end === end) periods.pop();
    periods.push({ start, end, orderId, status });
    periods.splice(0, Math.max(periods.length - periodsKept, 0));
  }

  /**
   * Renews the billed period: its order and one charge attempt (the next of its dunning), then
   * benefits cycled when paid, or the customer told and dunning moved on when declined.
   */
  async function renew(): Promise<void> {
    const periodEnd = billedPeriodEnd(schedule);
    if (!periodEnd) return;
    const periodStart = schedule.currentPeriodStart;
    const wasUnpaid = schedule.status === 'unpaid';
    const renewal = { subscriptionId, periodEnd, attempt: schedule.dunningAttempts + 1 };
    let result: RenewalResult;
    try {
      result = await renewals.renewSubscription(renewal);
    } catch (error) {
      // A local activity's last failure comes back as the activity's own failure.
      if (!(error instanceof ActivityFailure || error instanceof ApplicationFailure)) throw error;
      result = await steps.settleRenewalPayment({
        ...renewal,
        outcome: {
          status: 'failed',
          paymentId: null,
          error: {
            code: 'processor_unavailable',
            message: 'The payment processor could not be reached.',
          },
        },
      });
    }
    if (result.outcome === 'processing' && result.paymentId) {
      const outcome = await decidedOutcome(result.paymentId);
      result = await steps.settleRenewalPayment({ ...renewal, outcome });
    }
    adopt(result.state.schedule);
    const free = result.outcome === 'paid' && result.paymentId === null;
    const billed = result.outcome === 'paid' ? (free ? 'free' : 'paid') : 'failed';
    recordPeriod(periodStart, periodEnd, result.orderId, billed);
    if (result.outcome === 'paid') {
      await afterPaid(result.state, wasUnpaid);
      return;
    }
    mailPaymentFailed(result.orderId, renewal);
    if (schedule.status === 'past_due' && schedule.nextPaymentAttemptAt === null) {
      await endDunning();
    }
  }

  /** Finance's word: the billed period was paid outside Tollgate. */
  async function markResolved() {
    const periodEnd = billedPeriodEnd(schedule);
    if (!periodEnd) return;
    const periodStart = schedule.currentPeriodStart;
    const wasUnpaid = schedule.status === 'unpaid';
    const result = await steps.settleRenewalPayment({
      subscriptionId,
      periodEnd,
      attempt: schedule.dunningAttempts + 1,
      outcome: { status: 'succeeded', paymentId: null, error: null },
    });
    adopt(result.state.schedule);
    recordPeriod(periodStart, periodEnd, result.orderId, 'paid');
    await afterPaid(result.state, wasUnpaid);
  }

  /**
   * Charges the failed renewal now, outside the dunning schedule (see RenewalRetry); `answer`
   * hears the first outcome at once, even one that waits for the card holder's 3-D Secure step
   * or for Stripe, which this then waits for (the lock held: no scheduled retry charges
   * meanwhile). Resolves to the final outcome.
   */
  async function retryOutsideSchedule(
    retry: RenewalRetry,
    answer: (outcome: RenewalRetryOutcome) => void = () => {},
  ): Promise<RenewalRetryOutcome> {
    const periodStart = schedule.currentPeriodStart;
    const wasUnpaid = schedule.status === 'unpaid';
    let result: RenewalRetryResult = await renewals.retryRenewalPayment(retry);
    const { paymentId, paymentIntentId, paymentMethodId } = result;
    const undecided = result.outcome.status !== 'succeeded' && result.outcome.status !== 'failed';
    if (undecided && paymentId) {
      answer(result.outcome);
      const outcome = await decidedOutcome(paymentId);
      const heard = outcomes.get(paymentId)?.status;
      // Nothing decided in time: the PaymentIntent is canceled, never left to pay later.
      result =
        heard !== 'succeeded' && heard !== 'failed' && paymentIntentId
          ? await renewals.abandonRenewalRetry({
              ...retry,
              paymentId,
              paymentIntentId,
              paymentMethodId,
            })
          : await steps.settleRenewalRetry({ ...retry, paymentMethodId, outcome });
    }
    adopt(result.state.schedule);
    const paid = result.outcome.status === 'succeeded';
    recordPeriod(periodStart, retry.periodEnd, result.orderId, paid ? 'paid' : 'failed');
    if (paid) await afterPaid(result.state, wasUnpaid);
    woken = true;
    return result.outcome;
  }

  /** Clock signals heard before the load: applied, in order, once the schedule is known. */
  const earlyClockSignals: { testClockId: string; frozenTime: string }[] = [];
  function hearClock({ testClockId, frozenTime }: { testClockId: string; frozenTime: string }) {
    if (schedule.testClock?.id === testClockId) {
      adopt({ ...schedule, testClock: { id: testClockId, frozenTime } });
    }
  }
  setHandler(clockAdvancedSignal, (advanced) => {
    if (loaded) hearClock(advanced);
    else earlyClockSignals.push(advanced);
  });

  // The Stripe webhook's word on a processing charge; a redelivered event changes nothing.
  setHandler(paymentOutcomeSignal, (outcome) => {
    outcomes.set(outcome.paymentId, outcome);
  });

  setHandler(
    changeSubscriptionUpdate,
    async (change) => {
      await condition(() => loaded);
      return exclusively(async () => {
        if (hasEnded(schedule)) throw commerceRefusal('AlreadyCanceledSubscription');
        const result = await changes.applySubscriptionChange({
          subscriptionId,
          // The update's id names this change: a retried activity finds it applied.
          updateId: currentUpdateInfo()?.id ?? '',
          change,
        });
        adopt(result.schedule);
        woken = true;
        return result;
      });
    },
    {
      validator: (_change) => {
        if (!loaded) return;
        if (hasEnded(schedule)) throw commerceRefusal('AlreadyCanceledSubscription');
        if (busy) throw commerceRefusal('SubscriptionLocked');
      },
    },
  );

  setHandler(
    dunningActionUpdate,
    async (action) => {
      await condition(() => loaded);
      return exclusively(async () => {
        // Settled while this action waited for the one before it.
        if (!isPastDue(schedule)) throw commerceRefusal('NotPastDueSubscription');
        let retry: RenewalRetryOutcome | undefined;
        if (action === 'retry_now' && patched(retriesKeepSchedule)) {
          retry = await retryOutsideSchedule({
            subscriptionId,
            periodEnd: billedPeriodEnd(schedule) ?? schedule.currentPeriodStart,
            retryId: currentUpdateInfo()?.id ?? '',
            by: 'finance',
            orderId: null,
            paymentMethod: null,
          });
        } else if (action === 'retry_now') await renew();
        else if (action === 'mark_resolved') await markResolved();
        else
          adopt(
            (await steps.endSubscription({ subscriptionId, ending: 'finance_cancel' })).schedule,
          );
        woken = true;
        const described = await steps.describeSubscription({ subscriptionId });
        if (!retry) return described;
        // The charge's outcome, said plainly beside the subscription it left.
        const retried = { ...described.subscription, retry_result: retryResultWire(retry) };
        return { ...described, subscription: retried };
      });
    },
    {
      validator: (_action) => {
        if (!loaded) return;
        if (!isPastDue(schedule)) throw commerceRefusal('NotPastDueSubscription');
        if (busy) throw commerceRefusal('SubscriptionLocked');
      },
    },
  );

  setHandler(
    retryRenewalUpdate,
    async ({ orderId, paymentMethod }) => {
      const retryId = currentUpdateInfo()?.id ?? '';
      patched(retriesKeepSchedule);
      await condition(() => loaded);
      // Answered once the charge is decided, or as soon as it waits for the card holder.
      return new Promise<RenewalRetryOutcome>((resolve, reject) => {
        let answered = false;
        const answer = (outcome: RenewalRetryOutcome) => {
          if (!answered) resolve(outcome);
          answered = true;
        };
        exclusively(async () => {
          // Settled while this retry waited for the step before it.
          if (!isPastDue(schedule)) throw commerceRefusal('OrderNotEligibleForRetry');
          const periodEnd = billedPeriodEnd(schedule) ?? schedule.currentPeriodStart;
          const retry = { subscriptionId, periodEnd, retryId, orderId, paymentMethod };
          answer(await retryOutsideSchedule({ ...retry, by: 'customer' }, answer));
        }).catch((error: unknown) => {
          if (answered) throw error;
          answered = true;
          reject(error);
        });
      });
    },
    {
      validator: (_request) => {
        if (!loaded) return;
        if (!isPastDue(schedule)) throw commerceRefusal('OrderNotEligibleForRetry');
        if (busy) throw commerceRefusal('PaymentAlreadyInProgress');
      },
    },
  );

  setHandler(subscriptionStateQuery, () => {
    if (!loaded) throw new Error('The subscription is being loaded; ask again in a moment.');
    return {
      schedule,
      nextAction: nextActionOf(schedule),
      periods,
    };
  });

  adopt((await steps.loadSubscriptionState({ subscriptionId })).schedule);
  loaded = true;
  for (const advanced of earlyClockSignals.splice(0)) hearClock(advanced);

  let renewalsThisRun = 0;
  while (!hasEnded(schedule)) {
    if (renewalsThisRun >= renewalsPerRun || workflowInfo().continueAsNewSuggested) {
      if (patched(continuesInATaskOfItsOwn)) await sleep(1);
      // A retry waiting for its card holder holds the lock past its update's answer.
      await condition(() => allHandlersFinished() && mails.size === 0 && !busy);
      return continueAsNew<typeof subscription>({
        subscriptionId,
        carried: {
          periods,
          clockTime: schedule.testClock ? new Date(clockTime).toISOString() : null,
        },
      });
    }
    woken = false;
    const planned = nextActionOf(schedule);
    if (planned.at === null) {
      await condition(() => woken);
      continue;
    }
    if (!(await waitUntil(planned.at))) continue;
    await exclusively(async () => {
      const now = nextActionOf(schedule);
      // Changed while this waited for a change to finish: plan again.
      if (now.kind !== planned.kind || now.at !== planned.at) return;
      if (planned.kind === 'end') {
        adopt((await steps.endSubscription({ subscriptionId, ending: 'period_end' })).schedule);
      } else {
        await renew();
        renewalsThisRun += 1;
      }
    });
  }

  // Ended (at period end, by dunning, by finance, or revoked through the API): access goes.
  await revokeBenefits(await steps.loadSubscriptionState({ subscriptionId }));
  await condition(() => allHandlersFinished() && mails.size === 0);
}
