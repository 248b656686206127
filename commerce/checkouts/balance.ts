import type { EntityManager } from '@mikro-orm/postgresql';
import { type Checkout, Customer } from '../../db/entities/index.ts';
import { balanceToApply } from '../../domain/customer-balance.ts';
import { priceAmountLimits } from '../../domain/prices.ts';
import { availableBalancesOfCheckouts, balanceToUse } from '../customers/balance.ts';

/**
 * Whether the checkout may spend its customer's balance: only a customer the seller named (by
 * id or external id), never one matched by the email the buyer typed, who proves nothing (their
 * credit would pay a stranger's purchase), nor one this checkout creates (who has none).
 */
export const spendsCustomerBalance = (checkout: Checkout) =>
  checkout.customerSource === 'named' && checkout.customer != null;

/**
 * The hold a checkout being confirmed takes of its customer's balance (see balanceToUse):
 * written by the caller as the checkout's `fromBalanceAmount` in the confirm's transaction, which
 * keeps the customer's balance locked until it commits; nothing for a trial (the first renewal
 * uses the balance) or a checkout that spends none.
 */
export async function reserveCustomerBalance(
  tx: EntityManager,
  checkout: Checkout,
  trial: boolean,
): Promise<number> {
  if (trial || !spendsCustomerBalance(checkout)) return 0;
  const customerId = (checkout.customer as NonNullable<Checkout['customer']>).id;
  // A named customer deleted since is replaced by the confirm (assignCustomer): no hold of theirs.
  if (!(await tx.count(Customer, { id: customerId, deletedAt: null }))) return 0;
  return balanceToUse(tx, customerId, checkout.currency, checkout.totalAmount, checkout.id);
}

/**
 * What the balance would pay of each open (or failed, to be confirmed again) checkout that
 * spends it, as its page shows before the confirm takes the hold: by checkout id, one statement.
 * The confirm decides again under the balance's lock.
 */
export async function balancePreviews(
  em: EntityManager,
  checkouts: { checkout: Checkout; status: Checkout['status'] }[],
): Promise<Map<string, number>> {
  const previewed = checkouts
    .filter(({ checkout, status }) => {
      const confirmable = status === 'open' || status === 'failed';
      return confirmable && spendsCustomerBalance(checkout) && checkout.totalAmount > 0;
    })
    .map(({ checkout }) => checkout);
  const available = await availableBalancesOfCheckouts(
    em,
    previewed.map((checkout) => checkout.id),
  );
  return new Map(
    previewed.map((checkout) => [
      checkout.id,
      balanceToApply(
        available.get(checkout.id) ?? 0,
        checkout.totalAmount,
        priceAmountLimits.minimum,
      ),
    ]),
  );
}
