import type { CheckoutStatus } from '../../db/entities/checkout.ts';
import type { Checkout } from '../../db/entities/index.ts';
import { commerceError } from '../errors.ts';

/** Open past its expiry counts as expired, whether or not its workflow has swept it yet. */
export function effectiveStatus(checkout: Checkout, now = new Date()): CheckoutStatus {
  if (checkout.status === 'open' && checkout.expiresAt.getTime() <= now.getTime()) return 'expired';
  return checkout.status;
}

/** Only an open checkout changes: any other status (or past its expiry) answers 403 NotOpenCheckout. */
export function assertOpen(checkout: Checkout) {
  if (effectiveStatus(checkout) !== 'open') throw commerceError('NotOpenCheckout');
}

/**
 * Only an open checkout, or one whose payment failed (the buyer tries again), may be confirmed,
 * and only until it expires: past it 410 ExpiredCheckoutError, otherwise 403 NotOpenCheckout.
 */
export function assertConfirmable(checkout: Checkout) {
  const confirmable = checkout.status === 'open' || checkout.status === 'failed';
  const pastExpiry = checkout.expiresAt.getTime() <= Date.now();
  if (checkout.status === 'expired' || (confirmable && pastExpiry)) {
    throw commerceError('ExpiredCheckoutError');
  }
  if (!confirmable) throw commerceError('NotOpenCheckout');
}
