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
