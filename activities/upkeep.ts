import {
  type ReconciliationResult,
  reconcilePayments,
} from '../commerce/reconciliation/service.ts';
import type { Orm } from '../db/orm.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';

/**
 * The upkeep's own activities (the purge, the uploads and the reminders use the maintenance and
 * customer mail activities). Reconciling is idempotent: a retry finds and records the same.
 */
export function createUpkeepActivities({ orm, stripe }: { orm: Orm; stripe: StripeClient }) {
  return {
    /** Stripe's succeeded PaymentIntents against the orders created from `since` to `until`. */
    reconcilePayments(window: { since: string; until: string }): Promise<ReconciliationResult> {
      return reconcilePayments(orm.em.fork(), stripe, {
        since: new Date(window.since),
        until: new Date(window.until),
      });
    },
  };
}

export type UpkeepActivities = ReturnType<typeof createUpkeepActivities>;
