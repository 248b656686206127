/**
 * What a documented test payment method does when a PaymentIntent (or a SetupIntent) is
 * confirmed with it. A declined card fails a setup too, unless it `attaches` (saved, but every
 * charge declined).
 */
export type TestCard =
  | { outcome: 'succeeded'; brand: string; last4: string }
  | { outcome: 'requires_action'; brand: string; last4: string }
  | Decline;

export interface Decline {
  outcome: 'declined';
  brand: string;
  last4: string;
  code: string;
  declineCode: string | null;
  message: string;
  attaches?: boolean;
}

export const declined = (
  last4: string,
  code: string,
  declineCode: string | null,
  message: string,
) => ({ outcome: 'declined', brand: 'visa', last4, code, declineCode, message }) as const;

/** https://docs.stripe.com/testing#cards and #declined-payments */
const testCards: Record<string, TestCard> = {
  pm_card_visa: { outcome: 'succeeded', brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { outcome: 'succeeded', brand: 'visa', last4: '5556' },
  pm_card_mastercard: { outcome: 'succeeded', brand: 'mastercard', last4: '4444' },
  pm_card_amex: { outcome: 'succeeded', brand: 'amex', last4: '8431' },
  // Pays; a refund of the payment fails (https://docs.stripe.com/testing#refunds).
  pm_card_refundFail: { outcome: 'succeeded', brand: 'visa', last4: '5126' },
  pm_card_chargeDeclined: declined(
    '0002',
    'card_declined',
    'generic_decline',
    'Your card was declined.',
  ),
  pm_card_chargeDeclinedInsufficientFunds: declined(
    '9995',
    'card_declined',
    'insufficient_funds',
    'Your card has insufficient funds.',
  ),
  pm_card_chargeDeclinedLostCard: declined(
    '9987',
    'card_declined',
    'lost_card',
    'Your card was declined.',
  ),
  pm_card_chargeDeclinedExpiredCard: declined(
    '0069',
    'expired_card',
    null,
    'Your card has expired.',
  ),
  pm_card_chargeDeclinedProcessingError: declined(
    '0119',
    'processing_error',
    null,
    'An error occurred while processing your card. Try again in a little bit.',
  ),
  pm_card_authenticationRequired: { outcome: 'requires_action', brand: 'visa', last4: '3184' },
  // "3D Secure 2 authentication must be completed for the payment to be successful."
  pm_card_threeDSecure2Required: { outcome: 'requires_action', brand: 'visa', last4: '3220' },
  // "Attaching this card to a Customer object succeeds, but attempts to charge the customer fail."
  pm_card_chargeCustomerFail: {
    ...declined('0341', 'card_declined', 'generic_decline', 'Your card was declined.'),
    attaches: true,
  },
};

/** The test payment methods whose refunds fail, after a while, as an expired card's do. */
export const refundFailingCards = new Set(['pm_card_refundFail']);

/** Any other payment method (one made from a confirmation token, say) pays like Visa 4242. */
const defaultCard = testCards.pm_card_visa as TestCard;

/** What confirming with this payment method does. */
export const cardOf = (paymentMethodId: string): TestCard =>
  testCards[paymentMethodId] ?? defaultCard;
