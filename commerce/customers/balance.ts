/**
 * The customer balance: a ledger of entries per customer and currency (credit positive, as
 * Polar's `CustomerBalance` signs it: positive is what the customer has to spend), whose sum is
 * the balance. Renewals that go negative and plan changes that leave a credit add to it, sellers
 * adjust it, and orders take from it before the card is charged.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerBalanceEntry, type Order } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { balanceToApply, type CustomerBalanceEntryKind } from '../../domain/customer-balance.ts';
import { priceAmountLimits } from '../../domain/prices.ts';
import type { CommerceCaller } from '../caller.ts';
import { defaultBalanceCurrency } from './schemas.ts';
import { getCustomer } from './service.ts';
import { type CustomerLookup, recordCustomerStateChange } from './state.ts';

/** An entry to add; the source ids make it once (see db/entities/customer-balance.ts). */
export interface BalanceEntryInput {
  organizationId: string;
  customerId: string;
  currency: string;
  /** Minor units: positive credits the customer, negative takes from the balance. */
  amount: number;
  kind: CustomerBalanceEntryKind;
  reason: string;
  orderId?: string | null;
  subscriptionId?: string | null;
  idempotencyKey?: string | null;
  createdByUserId?: string | null;
  createdByTokenId?: string | null;
}

/**
 * Adds an entry inside the caller's transaction (after the order it names is flushed). An entry
 * its source made already (the same kind for the same order, the same idempotency key) is left
 * as it is: a retried activity adds nothing. Answers whether it was added.
 */
export async function addBalanceEntry(tx: EntityManager, entry: BalanceEntryInput) {
  const inserted = await tx.execute<{ id: string }[]>(
    `insert into customer_balance_entry (id, organization_id, customer_id, currency, amount, kind,
       reason, order_id, subscription_id, idempotency_key, created_by_user_id, created_by_token_id,
       created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())
     on conflict do nothing
     returning id`,
    [
      newId(),
      entry.organizationId,
      entry.customerId,
      entry.currency,
      entry.amount,
      entry.kind,
      entry.reason,
      entry.orderId ?? null,
      entry.subscriptionId ?? null,
      entry.idempotencyKey ?? null,
      entry.createdByUserId ?? null,
      entry.createdByTokenId ?? null,
    ],
  );
  return inserted.length > 0;
}

/** The customer's balance in `currency`: the sum of its entries (0 without any). */
export async function balanceOf(
  em: EntityManager,
  customerId: string,
  currency: string,
): Promise<number> {
  const [row] = await em.execute<{ balance: number }[]>(
    `select coalesce(sum(amount), 0)::int as balance from customer_balance_entry
     where customer_id = ? and currency = ?`,
    [customerId, currency],
  );
  return row?.balance ?? 0;
}

/** Holds the customer's balance until the transaction ends: writers of it queue here. */
const lockBalance = (tx: EntityManager, customerId: string) =>
  tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
    `customer_balance:${customerId}`,
  ]);

/**
 * What the customer can spend in `currency`: the balance less what confirmed checkouts hold of it
 * (their `from_balance_amount`, reserved when they were confirmed and waiting for their payment;
 * `exceptCheckoutId`'s own hold apart). One statement, so it sees a completing checkout either
 * still holding its credit or having spent it (its order's debit), never both or neither. A hold
 * ends with its checkout's confirmed state: succeeded (the order's debit takes over), failed.
 */
export async function availableBalance(
  em: EntityManager,
  customerId: string,
  currency: string,
  exceptCheckoutId: string | null = null,
): Promise<number> {
  const [row] = await em.execute<{ available: number }[]>(
    `select ((select coalesce(sum(amount), 0) from customer_balance_entry
               where customer_id = ? and currency = ?)
           - (select coalesce(sum(from_balance_amount), 0) from checkouts
               where customer_id = ? and currency = ? and status = 'confirmed'
                 and id is distinct from ?::uuid))::int as available`,
    [customerId, currency, customerId, currency, exceptCheckoutId],
  );
  return Number(row?.available ?? 0);
}

/**
 * What each of `checkoutIds`' customers can spend in its currency (see availableBalance), for
 * the checkouts not holding any yet: one statement whatever their number.
 */
export async function availableBalancesOfCheckouts(
  em: EntityManager,
  checkoutIds: string[],
): Promise<Map<string, number>> {
  if (checkoutIds.length === 0) return new Map();
  const rows = await em.execute<{ id: string; available: number }[]>(
    `select c.id,
       ((select coalesce(sum(e.amount), 0) from customer_balance_entry e
          where e.customer_id = c.customer_id and e.currency = c.currency)
      - (select coalesce(sum(h.from_balance_amount), 0) from checkouts h
          where h.customer_id = c.customer_id and h.currency = c.currency
            and h.status = 'confirmed' and h.id <> c.id))::int as available
     from checkouts c where c.id in (?) and c.customer_id is not null`,
    [checkoutIds],
  );
  return new Map(rows.map((row) => [row.id, Number(row.available)]));
}

/**
 * What an order of `total` takes from the customer's balance (balanceToApply: as much credit as
 * is available, at most the total, leaving nothing or at least Stripe's smallest charge to pay).
 * The customer's balance stays locked until the caller's transaction ends, so two orders at once
 * cannot spend the same credit; the caller writes what uses it in that transaction: a renewal's
 * order with `from_balance_amount` and its debit (recordOrderDebit), or a confirmed checkout's
 * hold (`exceptCheckoutId`, whose earlier hold does not count against it).
 */
export async function balanceToUse(
  tx: EntityManager,
  customerId: string,
  currency: string,
  total: number,
  exceptCheckoutId: string | null = null,
): Promise<number> {
  if (total <= 0) return 0;
  await lockBalance(tx, customerId);
  const available = await availableBalance(tx, customerId, currency, exceptCheckoutId);
  return balanceToApply(available, total, priceAmountLimits.minimum);
}

/** An order's use of the balance (its `from_balance_amount`), written once per order. */
export async function recordOrderDebit(tx: EntityManager, order: Order): Promise<boolean> {
  if (order.fromBalanceAmount <= 0) return false;
  return addBalanceEntry(tx, {
    organizationId: order.organization.id,
    customerId: order.customer.id,
    currency: order.currency,
    amount: -order.fromBalanceAmount,
    kind: 'order_debit',
    reason: `Used by order ${order.invoiceNumber}`,
    orderId: order.id,
    subscriptionId: order.subscription?.id ?? null,
  });
}

/** A customer's balance as /v1 answers it. */
export async function getCustomerBalance(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
  currency: string = defaultBalanceCurrency,
) {
  const customer = await getCustomer(em, organizationId, lookup);
  return { balance: await balanceOf(em, customer.id, currency), currency };
}

/** A page of the customer's entries, newest first (the dashboard's ledger view). */
export async function listBalanceEntries(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
  page: { limit: number; offset: number },
) {
  const customer = await getCustomer(em, organizationId, lookup);
  const [entries, count] = await em.findAndCount(
    CustomerBalanceEntry,
    { customer: customer.id },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: page.limit, offset: page.offset },
  );
  return { entries, count };
}

export interface BalanceAdjustment {
  amount: number;
  currency: string;
  reason: string;
}

/**
 * A seller's adjustment of a customer's balance: an entry naming who made it (the member, or the
 * access token) and why, which is its audit record; the customer's state changes with it
 * (customer.state_changed). Answers the entry and the balance after it.
 */
export function adjustCustomerBalance(
  em: EntityManager,
  caller: CommerceCaller,
  lookup: CustomerLookup,
  adjustment: BalanceAdjustment,
) {
  return em.transactional(async (tx) => {
    const customer = await getCustomer(tx, caller.organizationId, lookup);
    await lockBalance(tx, customer.id);
    const entry = tx.create(CustomerBalanceEntry, {
      organization: caller.organizationId,
      customer,
      currency: adjustment.currency,
      amount: adjustment.amount,
      kind: 'seller_adjustment',
      reason: adjustment.reason,
      createdByUserId: caller.kind === 'member' ? caller.userId : null,
      createdByTokenId: caller.kind === 'organization_token' ? caller.tokenId : null,
    });
    await tx.flush();
    await recordCustomerStateChange(tx, caller.organizationId, customer.id);
    return { entry, balance: await balanceOf(tx, customer.id, adjustment.currency) };
  });
}
