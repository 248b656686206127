import { randomBytes } from 'node:crypto';
import type { EntityDictionary, EntityManager } from '@mikro-orm/core';
import { AppError } from '../../core/errors.ts';
import {
  Checkout,
  Customer,
  CustomerSession,
  CustomerSignInLink,
} from '../../db/entities/index.ts';
import { sql, sqlCondition } from '../../db/sql.ts';
import { portalPath } from '../../domain/portal-paths.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { portalSignInLinkUrl } from './schemas.ts';

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

/** Whose portal a customer session opens, and until when (ms since the epoch). */
export interface OpenCustomerSession {
  customerId: string;
  organizationId: string;
  expiresAt: number;
}

/**
 * The session a `polar_cst_` token opens, or null (unknown, or handed out by a checkout that
 * has not succeeded). A found session never changes: only its expiry and its customer's
 * deletion end it (see findLiveCustomerRow).
 */
export async function findOpenSession(
  em: EntityManager,
  token: string,
): Promise<OpenCustomerSession | null> {
  if (!token.startsWith(customerSessionTokenPrefix)) return null;
  const [session] = await em
    .getConnection()
    .execute<{ customer_id: string; organization_id: string; expires_at: string | Date }[]>(
      `select s.customer_id, c.organization_id, s.expires_at
     from customer_sessions s
     join customers c on c.id = s.customer_id
     left join checkouts ch on ch.id = s.checkout_id
     where s.token_hash = ? and (s.checkout_id is null or ch.status = 'succeeded')`,
      [hashToken(token)],
    );
  if (!session) return null;
  return {
    customerId: session.customer_id,
    organizationId: session.organization_id,
    expiresAt: new Date(session.expires_at).getTime(),
  };
}

/** The customer's row as the table holds it, unless deleted: `em.map(Customer, row)` makes it an entity. */
export async function findLiveCustomerRow(
  em: EntityManager,
  organizationId: string,
  customerId: string,
): Promise<EntityDictionary<Customer> | null> {
  const [row] = await em
    .getConnection()
    .execute<EntityDictionary<Customer>[]>(
      'select * from customers where id = ? and organization_id = ? and deleted_at is null',
      [customerId, organizationId],
    );
  return row ?? null;
}

export const signInLinkTokenPrefix = 'tollgate_csl_';

/** How long a sign-in link a customer asked for stays usable. */
export const signInLinkLifetimeMs = 15 * 60 * 1000;

/**
 * How long the portal link of a notification mail (a failed payment, a trial ending) stays
 * usable: such a mail is read hours or days after it is sent. Still single use.
 */
export const mailedPortalLinkLifetimeMs = 7 * 24 * 60 * 60 * 1000;

const newSignInToken = () => `${signInLinkTokenPrefix}${randomBytes(32).toString('base64url')}`;

/**
 * Issues a one-time link for `customerId` (its row `linkId` when given: an activity retried
 * re-issues the same link with a new token, so one request never leaves two usable links) and
 * answers the token, its only copy. `returnTo` must be a portal path (domain/portal-paths.ts).
 */
export async function issueSignInLink(
  em: EntityManager,
  input: { customerId: string; email: string; returnTo?: string | null; linkId?: string },
  lifetimeMs = signInLinkLifetimeMs,
) {
  const token = newSignInToken();
  const expiresAt = new Date(Date.now() + lifetimeMs);
  const known = input.linkId ? await em.findOne(CustomerSignInLink, input.linkId) : null;
  if (known?.usedAt) return null;
  const link =
    known ??
    em.create(CustomerSignInLink, {
      ...(input.linkId && { id: input.linkId }),
      customer: em.getReference(Customer, input.customerId),
      email: input.email,
      returnTo: input.returnTo ?? null,
      tokenHash: hashToken(token),
      expiresAt,
    });
  link.tokenHash = hashToken(token);
  link.expiresAt = expiresAt;
  await em.flush();
  return { token, expiresAt, link };
}

/**
 * A link that opens the portal as `customerId`, on `returnTo` (a portal path such as
 * `/portal/subscriptions/<id>`), for mails sent to that customer's address: single use, valid
 * `lifetimeMs` (a week by default). Refuses a deleted customer and a path off the portal.
 */
export async function portalSignInUrl(
  em: EntityManager,
  {
    customerId,
    returnTo,
    publicUrl,
    lifetimeMs = mailedPortalLinkLifetimeMs,
  }: { customerId: string; returnTo?: string; publicUrl: string; lifetimeMs?: number },
): Promise<string> {
  const path = returnTo === undefined ? null : portalPath(returnTo);
  if (returnTo !== undefined && !path) {
    throw new AppError('invalid', 'invalid_return_to', `Not a portal path: ${returnTo}`);
  }
  const customer = await em.findOne(Customer, { id: customerId, deletedAt: null });
  if (!customer) throw new AppError('not_found', 'customer_not_found', 'Customer not found');
  const issued = await issueSignInLink(
    em,
    { customerId, email: customer.email, returnTo: path },
    lifetimeMs,
  );
  if (!issued) throw new Error('A new sign-in link cannot be used already');
  return portalSignInLinkUrl(publicUrl, issued.token);
}

/**
 * The live customer of the organization whose address is `email` (compared without case), and a
 * fresh link for it; null for an address no live customer has. Every lookup costs the same
 * whichever the answer; the caller tells nobody which it was.
 */
export async function signInLinkForEmail(
  em: EntityManager,
  input: { organizationId: string; email: string; returnTo: string | null; linkId: string },
) {
  const customer = await em.findOne(Customer, {
    organization: input.organizationId,
    deletedAt: null,
    $and: [sqlCondition((row) => sql`lower(${row}.email) = ${input.email.toLowerCase()}`)],
  });
  if (!customer) return null;
  const issued = await issueSignInLink(em, {
    customerId: customer.id,
    email: customer.email,
    returnTo: input.returnTo,
    linkId: input.linkId,
  });
  return issued && { customer, token: issued.token };
}

/**
 * Trades a sign-in link's token for a customer session, once: the link is marked used in the
 * transaction that opens the session, and only while unexpired, its customer live and still at
 * the address the link was mailed to. Null when any of that fails.
 */
export async function openSessionWithSignInLink(em: EntityManager, token: string) {
  if (!token.startsWith(signInLinkTokenPrefix)) return null;
  return em.transactional(async (tx) => {
    const now = new Date();
    const tokenHash = hashToken(token);
    const taken = await tx.nativeUpdate(
      CustomerSignInLink,
      { tokenHash, usedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    if (taken !== 1) return null;
    const link = await tx.findOneOrFail(
      CustomerSignInLink,
      { tokenHash },
      { populate: ['customer'] },
    );
    const { customer } = link;
    if (customer.deletedAt || customer.email.toLowerCase() !== link.email.toLowerCase()) {
      return null;
    }
    const session = await createCustomerSession(tx, { customerId: customer.id });
    return { ...session, customer, returnTo: link.returnTo ?? null };
  });
}

/**
 * Housekeeping (the purge of expired records): customer sessions that expired before `before`,
 * and sign-in links expired or used by then. A used link opens nothing again, and the sign-in
 * activity that issued it finished before it was mailed, so no retry re-issues it by its id.
 */
export async function deleteExpiredCustomerAccess(em: EntityManager, before: Date) {
  return em.transactional(async (tx) => ({
    sessions: await tx.nativeDelete(CustomerSession, { expiresAt: { $lt: before } }),
    signInLinks: await tx.nativeDelete(CustomerSignInLink, {
      $or: [{ expiresAt: { $lt: before } }, { usedAt: { $lt: before } }],
    }),
  }));
}
