import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/**
 * The activity options the workflows share, named for what they ride out. Changing one changes
 * every workflow that uses it (options are not part of the recorded history: running workflows
 * take the new value).
 */

/** Options that suit both proxyActivities and proxyLocalActivities. */
type StepOptions = ActivityOptions & LocalActivityOptions;

/**
 * Retried until the database or Stripe answers again: 1 s, 2 s, 4 s … then once a minute, with
 * no end. Only idempotent steps are retried so (a charge under its attempt's idempotency key).
 */
export const retryUntilDone = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
} as const;

/** One short step (a transaction, one Stripe call), retried until done. */
export const stepOptions: StepOptions = {
  startToCloseTimeout: '1 minute',
  retry: retryUntilDone,
};

/** A step with a caller waiting for its answer (a buyer's confirm): a few quick attempts. */
export const callerWaitingOptions: StepOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 4 },
};

/**
 * A step that needs the row its workflow was started for, which the starting transaction may
 * still be committing: about half a minute of attempts, then the step fails.
 */
export const awaitingCommitOptions: StepOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 6 },
};

/**
 * How every workflow sends mail. Ten attempts, waiting 1 s, 2 s, 4 s ... up to 5 min in between:
 * rides out about nine minutes of an unreachable or refusing SMTP server.
 */
export const mailActivityOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 10,
  },
};
