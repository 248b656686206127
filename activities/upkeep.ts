import {
  type ReconciliationResult,
  reconcilePayments,
} from '../commerce/reconciliation/service.ts';
import type { Orm } from '../db/orm.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { recordMissingTaxTransactions } from '../integrations/stripe/tax-transactions.ts';

/**
 * The upkeep's own activities (the purge, the uploads and the reminders use the maintenance and
 * customer mail activities). Reconciling is idempotent: a retry finds and records the same.
 */
export function createUpkeepActivities({ orm, stripe }: { orm: Orm; stripe: StripeClient }) {
  return {
    /**
     * Stripe's succeeded PaymentIntents against the orders created from `since` to `until`; and
     * the Stripe Tax transactions those of them that were paid still owe, recorded (a renewal
     * whose recording failed after it was paid: see createSubscriptionActivities).
     */
    async reconcilePayments(window: {
      since: string;
      until: string;
    }): Promise<ReconciliationResult> {
      const since = new Date(window.since);
      const until = new Date(window.until);
      const result = await reconcilePayments(orm.em.fork(), stripe, { since, until });
      await recordMissingTaxTransactions(
        { orm, stripe },
        { createdAt: { $gte: since, $lt: until } },
      );
      return result;
    },
  };
}

export type UpkeepActivities = ReturnType<typeof createUpkeepActivities>;
