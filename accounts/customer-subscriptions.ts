import type { EntityManager } from '@mikro-orm/postgresql';
import { hasEnded } from '../commerce/subscriptions/changes.ts';
import { Customer, Subscription, type User } from '../db/entities/index.ts';
import { isUuid } from '../db/ids.ts';
import { sql, sqlCondition } from '../db/sql.ts';
import { authError } from './errors.ts';

/**
 * The live customers (of any organization) a signed-in user is: those with the user's email
 * address, once the user has proved the address theirs. An unverified address is anybody's to
 * type, so it makes its user nobody's customer.
 */
async function customerIdsOf(
  em: EntityManager,
  user: Pick<User, 'email' | 'emailVerified'>,
): Promise<string[]> {
  if (!user.emailVerified) return [];
  const email = user.email.toLowerCase();
  const customers = await em.find(
    Customer,
    { $and: [{ deletedAt: null }, sqlCondition((row) => sql`lower(${row}.email) = ${email}`)] },
    { fields: ['id'] },
  );
  return customers.map((customer) => customer.id);
}

/**
 * The subscription whose scheduled cancellation the user, as its customer, asks to take back
 * (Better Auth's subscription/restore): `subscriptionId`, or without one the user's only live
 * subscription. Another customer's subscription is not found, exactly as an unknown one; an
 * ended one, or one not scheduled to end, is refused.
 */
export async function restorableSubscription(
  em: EntityManager,
  user: Pick<User, 'email' | 'emailVerified'>,
  subscriptionId: string | undefined,
): Promise<Subscription> {
  const notFound = () => authError('not_found', 'SUBSCRIPTION_NOT_FOUND');
  const customerIds = await customerIdsOf(em, user);
  if (customerIds.length === 0) throw notFound();
  let subscription: Subscription | null;
  if (subscriptionId === undefined) {
    const owned = await em.find(Subscription, { customer: { $in: customerIds } });
    const live = owned.filter((candidate) => !hasEnded(candidate));
    // Several: which one is meant is the caller's to say.
    if (live.length > 1) throw authError('invalid', 'SUBSCRIPTION_ID_NOT_FOUND');
    subscription = live[0] ?? null;
  } else {
    subscription = isUuid(subscriptionId)
      ? await em.findOne(Subscription, {
          id: subscriptionId.toLowerCase(),
          customer: { $in: customerIds },
        })
      : null;
  }
  if (!subscription) throw notFound();
  if (hasEnded(subscription)) throw authError('invalid', 'SUBSCRIPTION_NOT_ACTIVE');
  if (!subscription.cancelAtPeriodEnd) {
    throw authError('invalid', 'SUBSCRIPTION_NOT_SCHEDULED_FOR_CANCELLATION');
  }
  return subscription;
}
