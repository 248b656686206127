import { randomBytes } from 'node:crypto';
import { type FilterQuery, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from '../../core/errors.ts';
import type { CheckoutCustomerSource, CheckoutStatus } from '../../db/entities/checkout.ts';
import {
  Checkout,
  CheckoutLink,
  CheckoutLinkProduct,
  Customer,
  Discount,
  DiscountProduct,
  DiscountRedemption,
  Organization,
  Product,
  ProductPrice,
  Subscription,
} from '../../db/entities/index.ts';
import { subscriptionSettingsOf } from '../../db/entities/organization.ts';
import { sql, sqlCondition } from '../../db/sql.ts';
import {
  billingAddressFields,
  checkoutAmounts,
  checkoutFlags,
  missingAddressFields,
  priceAmountOf,
  trialEnd,
} from '../../domain/checkout-amounts.ts';
import {
  type AttachedCustomFieldRule,
  type CustomFieldRule,
  checkCustomFieldData,
} from '../../domain/custom-field-values.ts';
import { type DiscountRefusal, discountRefusal } from '../../domain/discounts.ts';
import { checkoutPrice, customAmountProblem } from '../../domain/prices.ts';
import { validateTaxId } from '../../domain/tax-ids.ts';
import { createCustomerSession } from '../customer-sessions/service.ts';
import { createCustomer } from '../customers/service.ts';
import { discountBaseWire } from '../discounts/schemas.ts';
import { commerceError, invalidFields, resourceNotFound } from '../errors.ts';
import {
  escapeLike,
  likePattern,
  orderBy,
  type Page,
  type SortCriterion,
} from '../http/listing.ts';
import { organizationWire } from '../organizations/schemas.ts';
import { appendEvent } from '../outbox.ts';
import { priceWire } from '../products/schemas.ts';
import { type ProductWire, serializeProducts } from '../products/service.ts';
import {
  type CheckoutConfirmInput,
  type CheckoutCreateInput,
  type CheckoutPublicWire,
  type CheckoutUpdateInput,
  type CheckoutUpdatePublicInput,
  type CheckoutView,
  type CheckoutWire,
  checkoutConfirmInput,
  checkoutPublicWire,
  type checkoutSortFields,
  checkoutWire,
} from './schemas.ts';

export const clientSecretPrefix = 'polar_c_';

const newClientSecret = () => `${clientSecretPrefix}${randomBytes(32).toString('base64url')}`;

/** What creating a checkout needs besides the request: where the page lives, how long it lasts. */
export interface CheckoutSettings {
  publicUrl: string;
  ttlSeconds: number;
  /**
   * Starts the checkout's workflow; called inside the creating transaction before it commits,
   * so a checkout whose workflow could not start is never written.
   */
  startWorkflow: (checkout: { id: string; expiresAt: Date }) => Promise<unknown>;
}

/** Open past its expiry counts as expired, whether or not its workflow has swept it yet. */
function effectiveStatus(checkout: Checkout, now = new Date()): CheckoutStatus {
  if (checkout.status === 'open' && checkout.expiresAt.getTime() <= now.getTime()) return 'expired';
  return checkout.status;
}

const issue = (loc: (string | number)[], msg: string, type = 'value_error'): ValidationIssue => ({
  loc,
  msg,
  type,
});

// ---------------------------------------------------------------------------------------------
// The offer: the products a checkout offers, as /v1 shows them.

/** The products of `ids` (any organization: callers check ownership), serialized, by id. */
export async function offeredProducts(em: EntityManager, ids: string[], publicUrl: string) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, ProductWire>();
  const products = await em.find(Product, { id: { $in: unique } });
  const wires = await serializeProducts(em, products, publicUrl);
  return new Map(wires.map((wire) => [wire.id, wire]));
}

/** The trial a checkout of a recurring product starts with: its own, else the product's. */
function activeTrial(checkout: Checkout, product: ProductWire, now: Date) {
  if (!product.is_recurring) return null;
  const interval = checkout.trialInterval ?? product.trial_interval;
  const count = checkout.trialInterval ? checkout.trialIntervalCount : product.trial_interval_count;
  if (!interval || !count) return null;
  return { interval, count, end: trialEnd(now, interval, count) };
}

/** The flags and address fields a checkout answers, from its product and amounts. */
function termsOf(checkout: Checkout, product: ProductWire, now: Date) {
  const trial = activeTrial(checkout, product, now);
  const flags = checkoutFlags({
    priceTypes: product.prices.map((price) => price.amount_type),
    recurring: product.is_recurring,
    totalAmount: checkout.totalAmount,
    trial: trial !== null,
  });
  const fields = billingAddressFields({
    country: checkout.customerBillingAddress?.country ?? null,
    requireBillingAddress: checkout.requireBillingAddress,
    isBusinessCustomer: checkout.isBusinessCustomer,
  });
  return { trial, flags, fields };
}

/**
 * Checkouts as the seller's API answers them, in a fixed number of queries whatever their
 * number: their discounts, customers and prices, then every product they offer once.
 */
export async function serializeCheckouts(
  em: EntityManager,
  checkouts: Checkout[],
  publicUrl: string,
  /** Their products already serialized (by a change that just read them), by id. */
  offer?: Map<string, ProductWire>,
): Promise<CheckoutWire[]> {
  if (checkouts.length === 0) return [];
  await em.populate(checkouts, ['discount', 'customer', 'subscription', 'productPrice.meter']);
  const products =
    offer ??
    (await offeredProducts(
      em,
      checkouts.flatMap((checkout) => checkout.productIds),
      publicUrl,
    ));
  const now = new Date();
  return checkouts.map((checkout) => {
    const product = products.get(checkout.product.id);
    if (!product) throw new Error(`Checkout ${checkout.id} offers a product that is gone`);
    const { trial, flags, fields } = termsOf(checkout, product, now);
    const view: CheckoutView = {
      publicUrl,
      status: effectiveStatus(checkout, now),
      products: checkout.productIds.flatMap((id) => products.get(id) ?? []),
      product,
      // An archived price is no longer listed with its product, but still what this checkout sells.
      price:
        product.prices.find((price) => price.id === checkout.productPrice.id) ??
        priceWire(checkout.productPrice, checkout.product),
      discount: checkout.discount ? discountBaseWire(checkout.discount) : null,
      flags,
      billingAddressFields: fields,
      activeTrial: trial,
    };
    return checkoutWire(checkout, view);
  });
}

async function serializeOne(
  em: EntityManager,
  checkout: Checkout,
  publicUrl: string,
  offer?: Map<string, ProductWire>,
) {
  const [wire] = await serializeCheckouts(em, [checkout], publicUrl, offer);
  return wire as CheckoutWire;
}

/** A checkout's wire shape as its buyer sees it, with the seller organization. */
async function publicWireOf(em: EntityManager, checkout: Checkout, wire: CheckoutWire) {
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  return checkoutPublicWire(wire, organizationWire(organization));
}

/** A checkout as its buyer sees it, with the seller organization. */
export async function serializeCheckoutPublic(
  em: EntityManager,
  checkout: Checkout,
  publicUrl: string,
): Promise<CheckoutPublicWire> {
  return publicWireOf(em, checkout, await serializeOne(em, checkout, publicUrl));
}

// ---------------------------------------------------------------------------------------------
// Reads.

export interface CheckoutListFilter {
  productIds: string[];
  customerIds: string[];
  statuses: CheckoutStatus[];
  query: string | undefined;
}

/** A page of the organization's checkouts matching `filter`, and how many match. */
export function listCheckouts(
  em: EntityManager,
  organizationId: string,
  filter: CheckoutListFilter,
  sorting: SortCriterion<(typeof checkoutSortFields)[number]>[],
  page: Page,
): Promise<[Checkout[], number]> {
  const where: FilterQuery<Checkout> = {
    organization: organizationId,
    ...(filter.productIds.length && { product: { $in: filter.productIds } }),
    ...(filter.customerIds.length && { customer: { $in: filter.customerIds } }),
    ...(filter.statuses.length && { status: { $in: filter.statuses } }),
    ...(filter.query && { customerEmail: { $ilike: likePattern(filter.query) } }),
  };
  const columns = { created_at: 'createdAt', expires_at: 'expiresAt', status: 'status' };
  return em.findAndCount(Checkout, where, {
    orderBy: [...orderBy(sorting, columns), { id: 'asc' }],
    limit: page.limit,
    offset: page.offset,
  });
}

/** A checkout of the organization; another organization's is not found. */
export async function getCheckout(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Checkout> {
  const checkout = await em.findOne(Checkout, { id, organization: organizationId });
  if (!checkout) throw resourceNotFound('Checkout not found');
  return checkout;
}

/** The checkout a buyer holds the secret of: unknown answers 404, expired 410. */
export async function getCheckoutByClientSecret(
  em: EntityManager,
  clientSecret: string,
  lockMode?: LockMode,
): Promise<Checkout> {
  const checkout = await em.findOne(Checkout, { clientSecret }, { lockMode });
  if (!checkout) throw resourceNotFound('Checkout not found');
  if (effectiveStatus(checkout) === 'expired') throw commerceError('ExpiredCheckoutError');
  return checkout;
}

// ---------------------------------------------------------------------------------------------
// Changes: one set of rules for creating, the seller's update, the buyer's update and confirm.

/** Every change a request may make; absent keys keep their value. */
type CheckoutChanges = Partial<
  CheckoutUpdateInput & Pick<CheckoutUpdatePublicInput, 'discount_code'>
>;

/** A discount of the organization with what decides whether it may be redeemed now. */
async function discountWithProducts(em: EntityManager, where: FilterQuery<Discount>) {
  const discount = await em.findOne(Discount, { $and: [where, { deletedAt: null }] });
  if (!discount) return null;
  const restrictions = await em.find(DiscountProduct, { discount }, { fields: ['product'] });
  const productIds = restrictions.map((restriction) => restriction.product.id);
  return { discount, productIds };
}

function refusalOf(
  found: NonNullable<Awaited<ReturnType<typeof discountWithProducts>>>,
  productId: string,
) {
  return discountRefusal(
    {
      startsAt: found.discount.startsAt ?? null,
      endsAt: found.discount.endsAt ?? null,
      maxRedemptions: found.discount.maxRedemptions ?? null,
      redemptionsCount: found.discount.redemptionsCount,
      productIds: found.productIds,
    },
    { at: new Date(), productId },
  );
}

/** Why a discount (or a code naming none) is refused, for the buyer. */
const discountRefusalMessages: Record<DiscountRefusal | 'unknown', string> = {
  unknown: 'This discount code does not exist.',
  not_started: 'This discount is not valid yet.',
  ended: 'This discount has expired.',
  exhausted: 'This discount has been fully redeemed.',
  product_not_applicable: 'This discount does not apply to this product.',
};

/**
 * Applies `changes` to the checkout (new or open), refusing every bad value together with a 422
 * located at its field; then recomputes the price, discount and amounts. `offer` holds the
 * products the checkout offers, serialized.
 */
async function applyChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  offer: Map<string, ProductWire>,
  { chosenAmount, confirming = false }: { chosenAmount: number | null; confirming?: boolean },
): Promise<void> {
  const organizationId = checkout.organization.id;
  const issues: ValidationIssue[] = [];
  let amount = chosenAmount;

  // The product and price: a price of another offered product selects that product.
  if (changes.product_price_id) {
    const price = await em.findOne(ProductPrice, {
      id: changes.product_price_id,
      isArchived: false,
      product: { $in: checkout.productIds },
    });
    if (!price) {
      issues.push(issue(['body', 'product_price_id'], 'Price is not available in this checkout.'));
    } else if (price.id !== checkout.productPrice.id) {
      checkout.product = price.product;
      checkout.productPrice = price;
      amount = null;
    }
  } else if (changes.product_id && changes.product_id !== checkout.product.id) {
    const product = offer.get(changes.product_id);
    const selected = product ? defaultPrice(product) : null;
    if (!product || product.is_archived || !selected || !checkout.productIds.includes(product.id)) {
      issues.push(issue(['body', 'product_id'], 'Product is not available in this checkout.'));
    } else {
      checkout.product = em.getReference(Product, product.id);
      checkout.productPrice = em.getReference(ProductPrice, selected.id);
      amount = null;
    }
  }
  const product = offer.get(checkout.product.id);
  if (!product) throw new Error(`Checkout ${checkout.id} selects a product it does not offer`);
  const price = await em.findOneOrFail(ProductPrice, checkout.productPrice.id);

  if (changes.amount != null && price.amountType === 'custom') {
    const problem = customAmountProblem(
      { minimumAmount: price.minimumAmount ?? null, maximumAmount: price.maximumAmount ?? null },
      changes.amount,
    );
    if (problem) issues.push(issue(['body', 'amount'], problem));
    else amount = changes.amount;
  }
  if (changes.seats !== undefined) checkout.seats = changes.seats;

  // The buyer.
  if (changes.customer_name !== undefined) checkout.customerName = changes.customer_name;
  if (changes.customer_email !== undefined) checkout.customerEmail = changes.customer_email;
  if (changes.customer_billing_name !== undefined) {
    checkout.customerBillingName = changes.customer_billing_name;
  }
  if (changes.customer_billing_address !== undefined) {
    checkout.customerBillingAddress = changes.customer_billing_address;
  }
  if (changes.is_business_customer != null) {
    checkout.isBusinessCustomer = changes.is_business_customer;
  }
  if (changes.customer_ip_address !== undefined) {
    checkout.customerIpAddress = changes.customer_ip_address;
  }
  if (changes.customer_metadata != null) checkout.customerMetadata = changes.customer_metadata;
  // A tax id is read in the billing country; one the country no longer recognises is dropped.
  const taxIdValue =
    changes.customer_tax_id === undefined ? checkout.customerTaxId?.[0] : changes.customer_tax_id;
  const country = checkout.customerBillingAddress?.country;
  const taxId = taxIdValue && country ? validateTaxId(taxIdValue, country) : null;
  if (changes.customer_tax_id && !country) {
    issues.push(
      issue(
        ['body', 'customer_billing_address'],
        'Country is required to validate tax ID.',
        'missing',
      ),
    );
  } else if (changes.customer_tax_id && !taxId) {
    issues.push(issue(['body', 'customer_tax_id'], 'Invalid tax ID.'));
  }
  checkout.customerTaxId = taxId;

  // The seller's settings.
  if (changes.allow_discount_codes != null)
    checkout.allowDiscountCodes = changes.allow_discount_codes;
  if (changes.require_billing_address != null) {
    checkout.requireBillingAddress = changes.require_billing_address;
  }
  if (changes.success_url !== undefined) checkout.successUrl = changes.success_url;
  if (changes.embed_origin !== undefined) checkout.embedOrigin = changes.embed_origin;
  if (changes.metadata) checkout.metadata = changes.metadata;
  if (changes.trial_interval !== undefined) checkout.trialInterval = changes.trial_interval;
  if (changes.trial_interval_count !== undefined) {
    checkout.trialIntervalCount = changes.trial_interval_count;
  }
  if ((checkout.trialInterval == null) !== (checkout.trialIntervalCount == null)) {
    const missing = checkout.trialInterval == null ? 'trial_interval' : 'trial_interval_count';
    issues.push(issue(['body', missing], 'Field required with a trial.', 'missing'));
  } else if (checkout.trialInterval && !product.is_recurring) {
    issues.push(issue(['body', 'trial_interval'], 'A trial needs a recurring product.'));
  }

  // Values of the product's custom fields: checked now, required ones only at confirm.
  if (changes.custom_field_data != null) {
    const attached = attachedFieldRules(product).map((rule) => ({ ...rule, required: false }));
    const checked = checkCustomFieldData(attached, changes.custom_field_data);
    for (const refused of checked.issues) {
      issues.push(issue(['body', 'custom_field_data', refused.slug], refused.message));
    }
    checkout.customFieldData = checked.data;
  }

  // The discount: named by the seller, or by its code by the buyer.
  if (changes.discount_id !== undefined) {
    const found = changes.discount_id
      ? await discountWithProducts(em, { id: changes.discount_id, organization: organizationId })
      : null;
    const refusal = found && refusalOf(found, product.id);
    if (changes.discount_id && (!found || refusal)) {
      issues.push(
        issue(
          ['body', 'discount_id'],
          'Discount does not exist or is not applicable to this product.',
        ),
      );
    } else {
      checkout.discount = found?.discount ?? null;
    }
  }
  if (changes.discount_code !== undefined) {
    const code = changes.discount_code;
    if (!code) {
      checkout.discount = null;
    } else if (!checkout.allowDiscountCodes) {
      issues.push(
        issue(['body', 'discount_code'], 'Discount codes are not accepted in this checkout.'),
      );
    } else {
      const found = await discountWithProducts(em, {
        organization: organizationId,
        code: { $ilike: escapeLike(code) },
      });
      const refusal = found ? refusalOf(found, product.id) : 'unknown';
      if (refusal) issues.push(issue(['body', 'discount_code'], discountRefusalMessages[refusal]));
      else checkout.discount = found?.discount ?? null;
    }
  }
  // A discount not for the product selected now falls away, as in Polar; one that ended or ran
  // out meanwhile is kept until confirm, which refuses it rather than charge the full price.
  if (
    checkout.discount &&
    changes.discount_id === undefined &&
    changes.discount_code === undefined
  ) {
    const found = await discountWithProducts(em, { id: checkout.discount.id });
    const refusal = found ? refusalOf(found, product.id) : 'product_not_applicable';
    if (refusal === 'product_not_applicable') checkout.discount = null;
    else if (refusal && confirming) {
      issues.push(issue(['body', 'discount_id'], discountRefusalMessages[refusal]));
    }
  }
  if (issues.length) throw invalidFields(issues);
  const discount = checkout.discount
    ? await em.findOneOrFail(Discount, checkout.discount.id)
    : null;
  const priceAmount = priceAmountOf(price, { amount, seats: checkout.seats });
  const amounts = checkoutAmounts(
    priceAmount,
    discount &&
      (discount.type === 'fixed'
        ? { type: 'fixed', amount: discount.amount ?? 0 }
        : { type: 'percentage', basisPoints: discount.basisPoints ?? 0 }),
  );
  checkout.amount = amounts.amount;
  checkout.discountAmount = amounts.discountAmount;
  checkout.netAmount = amounts.netAmount;
  checkout.taxAmount = amounts.taxAmount;
  checkout.totalAmount = amounts.totalAmount;
  checkout.currency = price.priceCurrency ?? 'usd';
}

/** The price a checkout selects for a product: its static price, else its first metered one. */
function defaultPrice(product: ProductWire) {
  return checkoutPrice(
    product.prices.map((price) => ({
      id: price.id,
      amountType: price.amount_type,
      isArchived: price.is_archived,
      createdAt: new Date(price.created_at),
    })),
  );
}

/** The custom fields a product asks for, as the value rules read them. */
function attachedFieldRules(product: ProductWire): AttachedCustomFieldRule[] {
  return product.attached_custom_fields.map((attached) => ({
    field: attached.custom_field as unknown as CustomFieldRule,
    required: attached.required,
  }));
}

/** The amount a buyer chose for a pay-what-you-want price, to keep across other changes. */
async function chosenAmountOf(em: EntityManager, checkout: Checkout): Promise<number | null> {
  const price = await em.findOneOrFail(ProductPrice, checkout.productPrice.id);
  return price.amountType === 'custom' ? checkout.amount : null;
}

/**
 * Refuses a recurring product to a customer who already subscribes, unless the organization
 * allows several subscriptions.
 */
async function assertMaySubscribe(em: EntityManager, checkout: Checkout, product: ProductWire) {
  if (!product.is_recurring || !checkout.customer) return;
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  if (subscriptionSettingsOf(organization).allowMultipleSubscriptions) return;
  const active = await em.count(Subscription, {
    customer: checkout.customer.id,
    status: { $in: ['active', 'trialing'] },
  });
  if (active > 0) throw commerceError('AlreadyActiveSubscriptionError');
}

/** Stamps, flushes and records the event carrying the checkout as /v1 answers it. */
async function recordChange(
  em: EntityManager,
  checkout: Checkout,
  type: 'checkout.created' | 'checkout.updated',
  publicUrl: string,
  offer?: Map<string, ProductWire>,
): Promise<CheckoutWire> {
  if (type === 'checkout.updated') checkout.modifiedAt = new Date();
  await em.flush();
  const wire = await serializeOne(em, checkout, publicUrl, offer);
  appendEvent(em, checkout.organization.id, type, wire);
  return wire;
}

/**
 * Creates a checkout for the organization's products (the first selected, at its static
 * price), its buyer and discount checked, and starts its workflow before committing. Records
 * `checkout.created`.
 */
export function createCheckout(
  em: EntityManager,
  organizationId: string,
  input: CheckoutCreateInput,
  settings: CheckoutSettings,
  origin: { checkoutLink?: CheckoutLink } = {},
): Promise<CheckoutWire> {
  return em.transactional(async (tx) => {
    const offer = await offeredProducts(tx, input.products, settings.publicUrl);
    const issues: ValidationIssue[] = [];
    input.products.forEach((id, index) => {
      const product = offer.get(id);
      const loc = ['body', 'products', index];
      if (!product || product.organization_id !== organizationId) {
        issues.push(issue(loc, 'Product does not exist.'));
      } else if (product.is_archived) {
        issues.push(issue(loc, 'Product is archived.'));
      } else if (product.prices.length === 0) {
        issues.push(issue(loc, 'Product has no price.'));
      } else if (input.products.indexOf(id) !== index) {
        issues.push(issue(loc, 'Product is listed twice.'));
      }
    });
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
    if (issues.length) throw invalidFields(issues);

    const first = offer.get(input.products[0] as string) as ProductWire;
    const price = defaultPrice(first) as { id: string };
    const checkout = tx.create(Checkout, {
      organization: tx.getReference(Organization, organizationId),
      clientSecret: newClientSecret(),
      status: 'open',
      expiresAt: new Date(Date.now() + settings.ttlSeconds * 1000),
      productIds: input.products,
      product: tx.getReference(Product, first.id),
      productPrice: tx.getReference(ProductPrice, price.id),
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
      tx,
      checkout,
      {
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
      { chosenAmount: null },
    );
    await assertMaySubscribe(tx, checkout, first);
    const wire = await recordChange(tx, checkout, 'checkout.created', settings.publicUrl, offer);
    await settings.startWorkflow({ id: checkout.id, expiresAt: checkout.expiresAt });
    return wire;
  });
}

/** Only an open checkout changes: any other status (or past its expiry) answers 403 NotOpenCheckout. */
function assertOpen(checkout: Checkout) {
  if (effectiveStatus(checkout) !== 'open') throw commerceError('NotOpenCheckout');
}

/** Applies an update to a checkout locked by the caller's transaction; records `checkout.updated`. */
async function updateLocked(
  tx: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  publicUrl: string,
): Promise<CheckoutWire> {
  const offer = await offeredProducts(tx, checkout.productIds, publicUrl);
  await applyChanges(tx, checkout, changes, offer, {
    chosenAmount: await chosenAmountOf(tx, checkout),
  });
  return recordChange(tx, checkout, 'checkout.updated', publicUrl, offer);
}

/** The seller's update of an open checkout; records `checkout.updated`. */
export function updateCheckout(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: CheckoutUpdateInput,
  publicUrl: string,
): Promise<CheckoutWire> {
  return em.transactional(async (tx) => {
    const checkout = await tx.findOne(
      Checkout,
      { id, organization: organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!checkout) throw resourceNotFound('Checkout not found');
    assertOpen(checkout);
    return updateLocked(tx, checkout, input, publicUrl);
  });
}

/** The buyer's update of an open checkout, by its client secret; records `checkout.updated`. */
export function updateCheckoutPublic(
  em: EntityManager,
  clientSecret: string,
  input: CheckoutUpdatePublicInput,
  publicUrl: string,
): Promise<CheckoutPublicWire> {
  return em.transactional(async (tx) => {
    const checkout = await getCheckoutByClientSecret(tx, clientSecret, LockMode.PESSIMISTIC_WRITE);
    assertOpen(checkout);
    return publicWireOf(tx, checkout, await updateLocked(tx, checkout, input, publicUrl));
  });
}

// ---------------------------------------------------------------------------------------------
// Confirm and expiry: the steps of the checkout workflow that change the checkout.

/**
 * Only an open checkout, or one whose payment failed (the buyer tries again), may be confirmed,
 * and only until it expires.
 */
export function assertConfirmable(checkout: Checkout) {
  const confirmable = checkout.status === 'open' || checkout.status === 'failed';
  const pastExpiry = checkout.expiresAt.getTime() <= Date.now();
  if (checkout.status === 'expired' || (confirmable && pastExpiry)) {
    throw commerceError('ExpiredCheckoutError');
  }
  if (!confirmable) throw commerceError('NotOpenCheckout');
}

/** What the workflow goes on with after a confirm. */
export interface ConfirmedCheckout {
  checkoutId: string;
  organizationId: string;
  customerId: string;
  productId: string;
  productPriceId: string;
  discountId: string | null;
  amount: number;
  discountAmount: number;
  netAmount: number;
  totalAmount: number;
  currency: string;
  /** Something to pay now: charge `totalAmount`. */
  isPaymentRequired: boolean;
  /** A recurring product that is not free: keep the payment method for renewals. */
  isPaymentSetupRequired: boolean;
  isRecurring: boolean;
  confirmationTokenId: string | null;
}

/** What the workflow needs of a confirmed checkout. */
function confirmedResult(
  checkout: Checkout,
  product: ProductWire,
  input: CheckoutConfirmInput,
): ConfirmedCheckout {
  const { flags } = termsOf(checkout, product, new Date());
  return {
    checkoutId: checkout.id,
    organizationId: checkout.organization.id,
    customerId: (checkout.customer as Customer).id,
    productId: checkout.product.id,
    productPriceId: checkout.productPrice.id,
    discountId: checkout.discount?.id ?? null,
    amount: checkout.amount,
    discountAmount: checkout.discountAmount,
    netAmount: checkout.netAmount,
    totalAmount: checkout.totalAmount,
    currency: checkout.currency,
    isPaymentRequired: flags.isPaymentRequired,
    isPaymentSetupRequired: flags.isPaymentSetupRequired,
    isRecurring: product.is_recurring,
    confirmationTokenId: input.confirmation_token_id ?? null,
  };
}

/** What confirm refuses to go on without, each at its field. */
function confirmIssues(
  checkout: Checkout,
  product: ProductWire,
  input: CheckoutConfirmInput,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const missing = (field: string, msg = 'Field required') =>
    issues.push(issue(['body', field], msg, 'missing'));
  if (!checkout.customerEmail) missing('customer_email');
  const { flags, fields } = termsOf(checkout, product, new Date());
  if (flags.isPaymentFormRequired) {
    if (!checkout.customerName) missing('customer_name');
    const address = checkout.customerBillingAddress;
    if (!address) missing('customer_billing_address');
    else {
      for (const field of missingAddressFields(fields, address)) {
        issues.push(
          issue(['body', 'customer_billing_address', field], 'Field required', 'missing'),
        );
      }
    }
    if (!input.confirmation_token_id) {
      missing('confirmation_token_id', 'Confirmation token is required.');
    }
  }
  const checked = checkCustomFieldData(attachedFieldRules(product), checkout.customFieldData);
  for (const refused of checked.issues) {
    issues.push(issue(['body', 'custom_field_data', refused.slug], refused.message, 'missing'));
  }
  return issues;
}

/**
 * Sets the checkout's customer and how it came to it: the one named at creation (or found by an
 * earlier confirm of this checkout, as it was found then), else the organization's customer with
 * the seller's external id, then with the email; else a new one (recording `customer.created`).
 */
async function assignCustomer(tx: EntityManager, checkout: Checkout): Promise<void> {
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
  // Written by a raw statement: the entity the checkout points at is the managed reference.
  assign(tx.getReference(Customer, created.id), 'created');
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

/**
 * Gives back the discount redemption the checkout holds, if any: a checkout that did not succeed
 * does not use up a code. The caller holds the checkout's row lock; running it again gives back
 * nothing more.
 */
export async function releaseDiscountRedemption(
  tx: EntityManager,
  checkoutId: string,
): Promise<void> {
  const held = await tx.findOne(DiscountRedemption, { checkout: checkoutId });
  if (!held) return;
  tx.remove(held);
  await tx.flush();
  await tx
    .getConnection()
    .execute(
      'update discounts set redemptions_count = redemptions_count - 1 where id = ?',
      [held.discount.id],
      'run',
      tx.getTransactionContext(),
    );
}

/**
 * Redeems the checkout's discount once: a redemption row (unique per checkout) beside a
 * guarded increment that never passes `max_redemptions`, whatever runs concurrently. A
 * redemption of another discount by an earlier attempt of this checkout is given back.
 */
async function redeemDiscount(
  tx: EntityManager,
  checkout: Checkout,
  input: CheckoutConfirmInput,
): Promise<void> {
  const discountId = checkout.discount?.id ?? null;
  const held = await tx.findOne(DiscountRedemption, { checkout: checkout.id });
  if (held && held.discount.id === discountId) return;
  if (held) await releaseDiscountRedemption(tx, checkout.id);
  if (!discountId) return;
  const result = await tx.getConnection().execute<{ affectedRows: number }>(
    `update discounts set redemptions_count = redemptions_count + 1
     where id = ? and deleted_at is null
       and (max_redemptions is null or redemptions_count < max_redemptions)`,
    [discountId],
    'run',
    tx.getTransactionContext(),
  );
  if (result.affectedRows !== 1) {
    const field = input.discount_code ? 'discount_code' : 'discount_id';
    throw invalidFields([issue(['body', field], discountRefusalMessages.exhausted)]);
  }
  tx.create(DiscountRedemption, { discount: discountId, checkout });
}

/**
 * THE confirm of a checkout, one transaction: the row locked; only an open checkout, or one
 * whose payment failed (the buyer retries), may be confirmed; the buyer's last changes
 * (`confirmation`, the confirm request's body) applied and everything confirm needs checked
 * (422s at their fields, nothing written); the customer matched or created; the discount
 * redeemed once; the checkout `confirmed` with `checkout.updated`. `confirmId` names this
 * confirm: running it again after it succeeded answers the same result and changes nothing,
 * while another confirm of a confirmed checkout is refused.
 */
export function confirmCheckout(
  em: EntityManager,
  checkoutId: string,
  confirmation: Record<string, unknown>,
  confirmId: string,
  publicUrl: string,
): Promise<ConfirmedCheckout> {
  const input = parseConfirmation(confirmation);
  return em.transactional(async (tx) => {
    const checkout = await tx.findOne(
      Checkout,
      { id: checkoutId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!checkout) throw resourceNotFound('Checkout not found');
    const offer = await offeredProducts(tx, checkout.productIds, publicUrl);
    if (checkout.confirmationId === confirmId && checkout.customer) {
      return confirmedResult(checkout, offer.get(checkout.product.id) as ProductWire, input);
    }
    assertConfirmable(checkout);

    const { confirmation_token_id: _, ...changes } = input;
    await applyChanges(tx, checkout, changes, offer, {
      chosenAmount: await chosenAmountOf(tx, checkout),
      confirming: true,
    });
    const product = offer.get(checkout.product.id) as ProductWire;
    const issues = confirmIssues(checkout, product, input);
    if (issues.length) throw invalidFields(issues);

    await assignCustomer(tx, checkout);
    await assertMaySubscribe(tx, checkout, product);
    await redeemDiscount(tx, checkout, input);
    checkout.status = 'confirmed';
    checkout.confirmedAt = new Date();
    checkout.confirmationId = confirmId;
    checkout.paymentError = null;
    await recordChange(tx, checkout, 'checkout.updated', publicUrl, offer);
    return confirmedResult(checkout, product, input);
  });
}

/** The confirm body, parsed as the route parsed it (it crossed the workflow as plain JSON). */
function parseConfirmation(confirmation: Record<string, unknown>): CheckoutConfirmInput {
  const parsed = checkoutConfirmInput.safeParse(confirmation);
  if (!parsed.success) throw RequestValidationError.fromZod('body', parsed.error.issues);
  return parsed.data;
}

/**
 * Expires an open checkout (its workflow's timer ran out), recording `checkout.updated`. A
 * failed one stays failed, and gives back a redemption it still holds (failed before failures
 * gave them back).
 */
export function expireCheckout(
  em: EntityManager,
  checkoutId: string,
  publicUrl: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const checkout = await tx.findOne(
      Checkout,
      { id: checkoutId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (checkout?.status === 'failed') await releaseDiscountRedemption(tx, checkoutId);
    if (checkout?.status !== 'open') return;
    checkout.status = 'expired';
    await recordChange(tx, checkout, 'checkout.updated', publicUrl);
  });
}

// ---------------------------------------------------------------------------------------------
// Checkout links.

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
    );
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
  }
  return wire;
}
