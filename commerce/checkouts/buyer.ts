import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutCustomerSource } from '../../db/entities/checkout.ts';
import { type Checkout, Customer, Organization, Subscription } from '../../db/entities/index.ts';
import { subscriptionSettingsOf } from '../../db/entities/organization.ts';
import { sql, sqlCondition } from '../../db/sql.ts';
import { createCustomerSession } from '../customer-sessions/service.ts';
import { createCustomer } from '../customers/service.ts';
import { commerceError } from '../errors.ts';
import type { ProductWire } from '../products/service.ts';

/**
 * Sets the checkout's customer and how it came to it: the one named at creation (or found by an
 * earlier confirm of this checkout, as it was found then), else the organization's customer with
 * the seller's external id, then with the email; else a new one (recording `customer.created`).
 */
export async function assignCustomer(tx: EntityManager, checkout: Checkout): Promise<void> {
  const organizationId = checkout.organization.id;
  const assign = (customer: Customer, source: CheckoutCustomerSource) => {
    checkout.customer = customer;
    checkout.customerSource = source;
  };
  if (checkout.customer) {
    const named = await tx.findOne(Customer, { id: checkout.customer.id, deletedAt: null });
    // A checkout written before sources were kept proves nothing.
    if (named) return assign(named, checkout.customerSource ?? 'email');
  }
  const live = { organization: organizationId, deletedAt: null };
  const externalId = checkout.externalCustomerId;
  const email = checkout.customerEmail as string;
  const byExternalId = externalId && (await tx.findOne(Customer, { ...live, externalId }));
  if (byExternalId) return assign(byExternalId, 'named');
  const byEmail = await tx.findOne(Customer, {
    ...live,
    ...sqlCondition(() => sql`lower("email") = ${email.toLowerCase()}`),
  });
  if (byEmail) return assign(byEmail, 'email');
  const created = await createCustomer(tx, organizationId, {
    email,
    external_id: externalId ?? null,
    name: checkout.customerName ?? null,
    billing_address: checkout.customerBillingAddress ?? null,
    // Revalidated against the billing country by the customers service.
    tax_id: checkout.customerTaxId ? [checkout.customerTaxId[0]] : null,
    metadata: checkout.customerMetadata,
  });
  // Written by a raw statement: managed as written, so that the checkout's event (which shows
  // the customer) reads it from here rather than from the database again.
  assign(tx.merge(created), 'created');
}

/**
 * Refuses a recurring product to a customer who already subscribes, unless the organization
 * allows several subscriptions.
 */
export async function assertMaySubscribe(
  em: EntityManager,
  checkout: Checkout,
  product: ProductWire,
) {
  if (!product.is_recurring || !checkout.customer) return;
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  if (subscriptionSettingsOf(organization).allowMultipleSubscriptions) return;
  const active = await em.count(Subscription, {
    customer: checkout.customer.id,
    status: { $in: ['active', 'trialing'] },
  });
  if (active > 0) throw commerceError('AlreadyActiveSubscriptionError');
}

/**
 * The portal session the confirm answers its buyer with: only for a customer the buyer is known
 * to be (named by the seller, or created by this checkout), never for one matched by the email
 * the buyer typed. Bound to the checkout, it opens the portal once the checkout succeeded. An
 * empty token otherwise: Polar's SDK requires the key.
 */
export async function buyerSessionToken(em: EntityManager, checkout: Checkout): Promise<string> {
  const source = checkout.customerSource;
  if (!checkout.customer || (source !== 'named' && source !== 'created')) return '';
  const { token } = await createCustomerSession(em, {
    customerId: checkout.customer.id,
    checkoutId: checkout.id,
  });
  return token;
}
