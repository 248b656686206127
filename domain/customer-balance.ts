/**
 * What moves a customer's balance (db/entities/customer-balance.ts): credits from renewals that
 * went negative, plan changes that leave a credit and refunds; a seller's adjustment either way;
 * debits when an order uses the balance.
 */
export const customerBalanceEntryKinds = [
  'renewal_credit',
  'proration_credit',
  'seller_adjustment',
  'order_debit',
  'refund',
] as const;
export type CustomerBalanceEntryKind = (typeof customerBalanceEntryKinds)[number];

/**
 * How much of a customer's available credit an order of `total` uses (minor units): as much as
 * there is, at most the total, so that what is left to charge is either nothing or at least
 * Stripe's smallest charge (`minimumCharge`). When the credit would leave a remainder above zero
 * but under the minimum, it uses that much less credit: a $10.00 order with $9.80 of credit
 * uses $9.50 and charges $0.50, instead of a $0.20 charge Stripe refuses. An order whose total
 * is itself under the minimum uses the credit only when it covers the whole of it.
 */
export function balanceToApply(available: number, total: number, minimumCharge: number): number {
  if (total <= 0 || available <= 0) return 0;
  const used = Math.min(available, total);
  const remainder = total - used;
  if (remainder === 0 || remainder >= minimumCharge) return used;
  return Math.max(total - minimumCharge, 0);
}
