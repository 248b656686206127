import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Checkout, Customer, CustomerSession } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';

export const customerSessionTokenPrefix = 'polar_cst_';

/** How long a customer session lasts (Polar: one hour). */
export const customerSessionLifetimeMs = 60 * 60 * 1000;

/**
 * Opens a portal session for a customer; the answer holds the only copy of the token (the table
 * keeps its SHA-256). A session of a `checkoutId` opens the portal only once that checkout
 * succeeded. Flushed at once, inside the caller's transaction when `em` is one.
 */
export async function createCustomerSession(
  em: EntityManager,
  input: { customerId: string; checkoutId?: string },
) {
  const token = `${customerSessionTokenPrefix}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + customerSessionLifetimeMs);
  const session = em.create(CustomerSession, {
    customer: em.getReference(Customer, input.customerId),
    checkout: input.checkoutId ? em.getReference(Checkout, input.checkoutId) : null,
    tokenHash: hashToken(token),
    expiresAt,
  });
  await em.flush();
  return { token, expiresAt, session };
}

/**
 * The live customer a `polar_cst_` token opens, or null (unknown, expired, customer deleted, or
 * handed out by a checkout that has not succeeded).
 */
export async function findSessionCustomer(
  em: EntityManager,
  token: string,
): Promise<Customer | null> {
  if (!token.startsWith(customerSessionTokenPrefix)) return null;
  const session = await em.findOne(
    CustomerSession,
    {
      tokenHash: hashToken(token),
      expiresAt: { $gt: new Date() },
      $or: [{ checkout: null }, { checkout: { status: 'succeeded' } }],
    },
    { populate: ['customer'] },
  );
  const customer = session?.customer;
  if (!customer || customer.deletedAt) return null;
  return customer;
}
