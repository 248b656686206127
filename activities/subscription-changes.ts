import {
  applySubscriptionChange,
  type SubscriptionChangeDependencies,
} from '../commerce/subscriptions/changes.ts';
import type {
  SubscriptionChange,
  SubscriptionChangeResult,
} from '../domain/subscription-schedule.ts';
import { toActivityFailure } from '../processes/activity-errors.ts';
import { workflowIds } from '../processes/workflow-ids.ts';

/**
 * The changes of a subscription asked through the API, applied by its workflow: each one
 * transaction of commerce/subscriptions/changes.ts.
 */
export function createSubscriptionChangeActivities(deps: SubscriptionChangeDependencies) {
  return {
    /**
     * Applies a change of the subscription (see applySubscriptionChange); a refusal fails the
     * update with its API error.
     */
    async applySubscriptionChange({
      subscriptionId,
      updateId,
      change,
    }: {
      subscriptionId: string;
      /** Names this change: a retried activity finds its own work done. */
      updateId: string;
      change: SubscriptionChange;
    }): Promise<SubscriptionChangeResult> {
      try {
        const update = { id: updateId, workflowId: workflowIds.subscription(subscriptionId) };
        return await applySubscriptionChange(deps, subscriptionId, update, change);
      } catch (error) {
        return toActivityFailure(error);
      }
    },
  };
}

export type SubscriptionChangeActivities = ReturnType<typeof createSubscriptionChangeActivities>;
