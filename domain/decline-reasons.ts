import type { RenewalRetryOutcome } from './subscription-schedule.ts';

/**
 * Why a card payment failed, in a sentence finance (and the customer) can act on, instead of
 * Stripe's code (`generic_decline`, `insufficient_funds`…). One place: the failed-renewals wire,
 * the portal's payment status and the payment-failed mail all read it from here.
 */
const declineReasons: Record<string, string> = {
  generic_decline: 'The bank declined the card without giving a reason.',
  card_declined: 'The bank declined the card without giving a reason.',
  do_not_honor: 'The bank declined the card without giving a reason.',
  insufficient_funds: 'The card has insufficient funds.',
  authentication_required:
    'The bank asks the card holder to authenticate this payment (3-D Secure).',
  payment_intent_authentication_failure: 'The card holder did not complete the authentication.',
  expired_card: 'The card has expired.',
  lost_card: 'The card was reported lost.',
  stolen_card: 'The card was reported stolen.',
  pickup_card: 'The bank asks for the card to be retained; it cannot be used.',
  restricted_card: 'The card cannot be used for this payment.',
  fraudulent: 'The bank suspects fraud.',
  incorrect_cvc: 'The card security code is incorrect.',
  processing_error: 'The card could not be processed; it may work on a later try.',
  processor_unavailable: 'The payment processor could not be reached; it will be tried again.',
  payment_timeout: 'The payment was not completed in time.',
  no_payment_method: 'No card is saved for this subscription.',
  card_velocity_exceeded: 'The card has exceeded its balance or credit limit.',
  withdrawal_count_limit_exceeded: 'The card has exceeded its balance or credit limit.',
  canceled: 'The payment was canceled.',
};

/** The readable reason of a decline code; an unknown code still reads as a decline. */
export function declineReasonOf(code: string | null | undefined): string | null {
  if (!code) return null;
  return declineReasons[code] ?? `The card was declined (${code.replaceAll('_', ' ')}).`;
}

/**
 * A retry's outcome as Tollgate's API answers it (finance's "retry now" adds it to the
 * subscription as `retry_result`): the status, Stripe's code and its readable reason.
 */
export function retryResultWire(outcome: RenewalRetryOutcome) {
  return {
    status: outcome.status,
    decline_code: outcome.error?.code ?? null,
    decline_reason: declineReasonOf(outcome.error?.code),
  };
}

/** The decline asks the card holder to authenticate (3-D Secure) rather than for another card. */
export const needsAuthentication = (code: string | null | undefined) =>
  code === 'authentication_required';
