import { randomBytes } from 'node:crypto';
import { FlushMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from '../../core/errors.ts';
import { businessMetrics } from '../../core/metrics.ts';
import {
  Checkout,
  CheckoutLink,
  CheckoutLinkProduct,
  Customer,
  Organization,
  Product,
  ProductPrice,
  Subscription,
} from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { invalidFields, resourceNotFound } from '../errors.ts';
import type { ProductWire } from '../products/service.ts';
import { assertMaySubscribe } from './buyer.ts';
import { issue } from './changes.ts';
import { discountWithProducts, refusalOf } from './discounts.ts';
import { applyChanges, defaultPrice, stripeTaxFrom } from './pricing.ts';
import type { CheckoutCreateInput, CheckoutWire } from './schemas.ts';
import { updateCheckoutPublic } from './updates.ts';
import { offeredProducts, recordChange } from './views.ts';

export const clientSecretPrefix = 'polar_c_';

const newClientSecret = () => `${clientSecretPrefix}${randomBytes(32).toString('base64url')}`;

/** What creating a checkout needs besides the request: where the page lives, how long it lasts. */
export interface CheckoutSettings {
  publicUrl: string;
  ttlSeconds: number;
  /**
   * Starts the checkout's workflow; called before the checkout is written, so a checkout whose
   * workflow could not start is never written.
   */
  startWorkflow: (checkout: { id: string; expiresAt: Date }) => Promise<unknown>;
  /** For an organization that taxes with Stripe Tax (docs/tax.md). */
  stripe?: StripeClient;
}

type Loc = (string | number)[];

/**
 * The products asked for, and where an issue with each is located: `products`, or the one of
 * Polar's deprecated `product_id`, or the product of its deprecated `product_price_id` (another
 * organization's price does not exist, like an unknown one).
 */
async function askedProducts(
  tx: EntityManager,
  organizationId: string,
  input: CheckoutCreateInput,
): Promise<{ productIds: string[]; locOf: (index: number) => Loc; issues: ValidationIssue[] }> {
  if (input.product_price_id) {
    const price = await tx.findOne(ProductPrice, {
      id: input.product_price_id,
      product: { organization: organizationId },
    });
    const loc = ['body', 'product_price_id'];
    return price
      ? { productIds: [price.product.id], locOf: () => loc, issues: [] }
      : { productIds: [], locOf: () => loc, issues: [issue(loc, 'Price does not exist.')] };
  }
  if (input.product_id) {
    return { productIds: [input.product_id], locOf: () => ['body', 'product_id'], issues: [] };
  }
  return {
    productIds: input.products ?? [],
    locOf: (index) => ['body', 'products', index],
    issues: [],
  };
}

/** Why each product asked for may not be offered, at its index. */
function offerIssues(
  productIds: string[],
  offer: Map<string, ProductWire>,
  organizationId: string,
  locOf: (index: number) => Loc,
): ValidationIssue[] {
  return productIds.flatMap((id, index) => {
    const product = offer.get(id);
    const loc = locOf(index);
    if (!product || product.organization_id !== organizationId) {
      return [issue(loc, 'Product does not exist.')];
    }
    if (product.is_archived) return [issue(loc, 'Product is archived.')];
    if (product.prices.length === 0) return [issue(loc, 'Product has no price.')];
    if (productIds.indexOf(id) !== index) return [issue(loc, 'Product is listed twice.')];
    return [];
  });
}

/**
 * The customer and subscription the seller names, if any: a customer by id must exist, one by
 * external id may not yet.
 */
async function namedParties(tx: EntityManager, organizationId: string, input: CheckoutCreateInput) {
  const issues: ValidationIssue[] = [];
  let customer: Customer | null = null;
  if (input.customer_id) {
    customer = await tx.findOne(Customer, {
      id: input.customer_id,
      organization: organizationId,
      deletedAt: null,
    });
    if (!customer) issues.push(issue(['body', 'customer_id'], 'Customer does not exist.'));
  } else if (input.external_customer_id) {
    customer = await tx.findOne(Customer, {
      externalId: input.external_customer_id,
      organization: organizationId,
      deletedAt: null,
    });
  }
  let subscription: Subscription | null = null;
  if (input.subscription_id) {
    subscription = await tx.findOne(Subscription, {
      id: input.subscription_id,
      organization: organizationId,
    });
    if (!subscription) {
      issues.push(issue(['body', 'subscription_id'], 'Subscription does not exist.'));
    }
  }
  return { customer, subscription, issues };
}

/**
 * Creates a checkout for the organization's products (the first selected, at its static
 * price, or the price asked for), its buyer and discount checked, and starts its workflow before
 * committing it. Records `checkout.created`.
 *
 * Read, checked and priced (Stripe Tax asked) outside any transaction, and its workflow started
 * then: only the checkout's row and its event are written in one, with no network call inside.
 */
export async function createCheckout(
  em: EntityManager,
  organizationId: string,
  input: CheckoutCreateInput,
  settings: CheckoutSettings,
  origin: { checkoutLink?: CheckoutLink } = {},
): Promise<CheckoutWire> {
  // Nothing is flushed until the transaction below: a read meanwhile never writes the draft.
  const draft = em.fork({ flushMode: FlushMode.COMMIT });
  const asked = await askedProducts(draft, organizationId, input);
  const { productIds } = asked;
  const offer = await offeredProducts(draft, productIds, settings.publicUrl);
  const productIssues = [
    ...asked.issues,
    ...offerIssues(productIds, offer, organizationId, asked.locOf),
  ];
  const { customer, subscription, issues } = await namedParties(draft, organizationId, input);
  if (productIssues.length || issues.length) throw invalidFields([...productIssues, ...issues]);

  const first = offer.get(productIds[0] as string) as ProductWire;
  const price = defaultPrice(first) as { id: string };
  const checkout = draft.create(Checkout, {
    // Its own id now: the workflow started below is named by it.
    id: newId(),
    organization: draft.getReference(Organization, organizationId),
    clientSecret: newClientSecret(),
    status: 'open',
    expiresAt: new Date(Date.now() + settings.ttlSeconds * 1000),
    productIds,
    product: draft.getReference(Product, first.id),
    productPrice: draft.getReference(ProductPrice, price.id),
    amount: 0,
    netAmount: 0,
    totalAmount: 0,
    currency: 'usd',
    customer,
    customerSource: customer ? 'named' : null,
    subscription,
    checkoutLink: origin.checkoutLink ?? null,
    externalCustomerId: input.external_customer_id,
    // The buyer's details default to what the seller knows of the customer.
    customerEmail: input.customer_email ?? customer?.email ?? null,
    customerName: input.customer_name ?? customer?.name ?? null,
    customerBillingAddress: input.customer_billing_address ?? customer?.billingAddress ?? null,
    // The customer's tax id, kept while the billing country recognises it.
    customerTaxId: customer?.taxId ?? null,
    customFieldData: {},
  });
  await applyChanges(
    draft,
    checkout,
    {
      // A deprecated `product_price_id` selects that price of its product.
      product_price_id: input.product_price_id,
      amount: input.amount,
      seats: input.seats,
      customer_billing_name: input.customer_billing_name,
      customer_tax_id: input.customer_tax_id ?? undefined,
      customer_ip_address: input.customer_ip_address,
      customer_metadata: input.customer_metadata,
      is_business_customer: input.is_business_customer,
      discount_id: input.discount_id,
      allow_discount_codes: input.allow_discount_codes,
      require_billing_address: input.require_billing_address,
      success_url: input.success_url,
      embed_origin: input.embed_origin,
      trial_interval: input.trial_interval,
      trial_interval_count: input.trial_interval_count,
      metadata: input.metadata,
      custom_field_data: input.custom_field_data ?? {},
    },
    offer,
    { chosenAmount: null, stripeTax: settings.stripe && stripeTaxFrom(settings.stripe) },
  );
  await assertMaySubscribe(draft, checkout, first);
  await settings.startWorkflow({ id: checkout.id, expiresAt: checkout.expiresAt });
  // A workflow whose checkout never commits finds none at its expiry, and ends.
  await draft.begin();
  try {
    const created = await recordChange(
      draft,
      checkout,
      'checkout.created',
      settings.publicUrl,
      offer,
    );
    await draft.commit();
    businessMetrics.checkoutsStarted.inc();
    return created;
  } catch (error) {
    await draft.rollback();
    throw error;
  }
}

/** What following a link may say about the buyer (query parameters of the redirect). */
export interface CheckoutLinkVisit {
  customer_email?: string | undefined;
  customer_name?: string | undefined;
  discount_code?: string | undefined;
  embed_origin?: string | undefined;
}

/**
 * A new checkout for a live link's products (archived ones left out), with the link's settings;
 * its discount only while still redeemable. Unknown or deleted links are not found.
 */
export async function createCheckoutFromLink(
  em: EntityManager,
  linkSecret: string,
  visit: CheckoutLinkVisit,
  settings: CheckoutSettings,
): Promise<CheckoutWire> {
  const link = await em.findOne(CheckoutLink, { clientSecret: linkSecret, deletedAt: null });
  if (!link) throw resourceNotFound('Checkout link not found');
  const rows = await em.find(
    CheckoutLinkProduct,
    { checkoutLink: link, product: { isArchived: false } },
    { orderBy: { order: 'asc' } },
  );
  const products = rows.map((row) => row.product.id);
  const [first] = products;
  if (!first) throw resourceNotFound('Checkout link not found');
  const discount = link.discount ? await discountWithProducts(em, { id: link.discount.id }) : null;
  const linkDiscountId = discount && !refusalOf(discount, first) ? discount.discount.id : null;
  const email = visit.customer_email?.trim();
  const wire = await createCheckout(
    em,
    link.organization.id,
    {
      products,
      discount_id: linkDiscountId,
      allow_discount_codes: link.allowDiscountCodes,
      require_billing_address: link.requireBillingAddress,
      is_business_customer: false,
      success_url: link.successUrl ?? null,
      trial_interval: link.trialInterval ?? null,
      trial_interval_count: link.trialIntervalCount ?? null,
      metadata: link.metadata,
      customer_email: email && z.email().safeParse(email).success ? email : null,
      customer_name: visit.customer_name?.trim() || null,
      embed_origin: visit.embed_origin ?? null,
      external_customer_id: null,
      customer_billing_name: null,
      customer_tax_id: null,
    },
    settings,
    { checkoutLink: link },
  );
  if (!visit.discount_code || !link.allowDiscountCodes) return wire;
  // A code in the link's URL applies when valid, and is ignored otherwise.
  try {
    await updateCheckoutPublic(
      em,
      wire.client_secret,
      { discount_code: visit.discount_code },
      settings.publicUrl,
      settings.stripe,
    );
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
  }
  return wire;
}
