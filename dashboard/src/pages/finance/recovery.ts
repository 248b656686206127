/**
 * Finance's view of a failed renewal's recovery, in words: what "Retry now" (or another of
 * finance's actions) did, and who paid a renewal after it had failed. Pure functions of the API's fields (type-only imports).
 */
import type { RenewalRecoverer } from '../../../../db/entities/subscription.ts';
import type { retryResultWire } from '../../../../domain/decline-reasons.ts';

export type RetryResult = ReturnType<typeof retryResultWire>;

const statusWords = (status: string) => status.replaceAll('_', ' ');

/**
 * What a retry did, plainly: paid, declined (with the bank's reason, readable), waiting for the
 * customer to authenticate, or still processing. Without a result (the subscription alone), its
 * status tells.
 */
export function retryOutcome(after: { status: string; retry_result?: RetryResult | null }) {
  const result = after.retry_result;
  if (!result) {
    return after.status === 'active'
      ? 'The retry was paid: the subscription is active again.'
      : `The retry was declined again: the subscription is ${statusWords(after.status)}.`;
  }
  switch (result.status) {
    case 'succeeded':
      return 'The retry was paid: the subscription is active again.';
    case 'requires_action':
      return 'The bank asks the customer to authenticate this payment: send them the update-card link.';
    case 'processing':
      return 'The retry is being processed: the bank has not answered yet.';
    default:
      return [
        'The retry was declined.',
        result.decline_reason ?? 'The bank gave no reason.',
        `The subscription stays ${statusWords(after.status)}; scheduled retries go on as planned.`,
      ].join(' ');
  }
}

/** What finance's action did, as the page's notice says it. */
export function actionOutcome(
  action: 'retry' | 'resolve' | 'cancel' | 'update_card_link',
  result: { status: string; retry_result?: RetryResult | null } | { sent_to: string },
): string {
  if ('sent_to' in result) {
    return `The update-card link was mailed to ${result.sent_to}: paying with a new card there settles the renewal.`;
  }
  if (action === 'retry') return retryOutcome(result);
  if (action === 'resolve') return 'Marked resolved: the subscription is active again.';
  return 'The subscription is canceled.';
}

const recoverers: Record<RenewalRecoverer, string> = {
  customer: 'Recovered by the customer',
  finance: 'Recovered by finance',
  dunning: 'Recovered by a scheduled retry',
};

/** Who paid a failed renewal after all; null when none was recovered. */
export const recoveredLabel = (recoveredBy: RenewalRecoverer | null) =>
  recoveredBy ? recoverers[recoveredBy] : null;
