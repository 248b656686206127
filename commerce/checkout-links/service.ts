import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { ValidationIssue } from '../../core/errors.ts';
import {
  CheckoutLink,
  CheckoutLinkProduct,
  Discount,
  DiscountProduct,
  Product,
  ProductPrice,
} from '../../db/entities/index.ts';
import { findPage, type ListQuery } from '../../db/listing.ts';
import { linkedToAny } from '../../db/sql.ts';
import { invalidFields, resourceNotFound } from '../errors.ts';
import { serializeProducts } from '../products/service.ts';
import {
  type CheckoutLinkCreateInput,
  type CheckoutLinkUpdateInput,
  checkoutLinkProductWire,
  type checkoutLinkSortFields,
  checkoutLinkWire,
} from './schemas.ts';

type CheckoutLinkSortField = (typeof checkoutLinkSortFields)[number];

const clientSecretPrefix = 'tollgate_cl_';

/** The link's public path segment: 32 random bytes, URL-safe. */
const newClientSecret = () => `${clientSecretPrefix}${randomBytes(32).toString('base64url')}`;

/**
 * The organization's products by id, in the order given; unknown (or foreign), archived and
 * repeated ids are refused at `loc` (plus the index when `indexed`).
 */
async function offeredProducts(
  em: EntityManager,
  organizationId: string,
  ids: string[],
  loc: (string | number)[],
  indexed: boolean,
): Promise<Product[]> {
  const found = await em.find(Product, { id: { $in: ids }, organization: organizationId });
  const byId = new Map(found.map((product) => [product.id, product]));
  const issues: ValidationIssue[] = [];
  const at = (index: number) => (indexed ? [...loc, index] : loc);
  ids.forEach((id, index) => {
    const product = byId.get(id);
    if (!product) {
      issues.push({ loc: at(index), msg: 'Product does not exist.', type: 'value_error' });
    } else if (product.isArchived) {
      issues.push({ loc: at(index), msg: 'Product is archived.', type: 'value_error' });
    } else if (ids.indexOf(id) !== index) {
      issues.push({ loc: at(index), msg: 'Product is listed twice.', type: 'value_error' });
    }
  });
  if (issues.length) throw invalidFields(issues);
  return ids.map((id) => byId.get(id) as Product);
}

/** The product of a live price of the organization (the deprecated `product_price_id` form). */
async function productOfPrice(em: EntityManager, organizationId: string, priceId: string) {
  const loc = ['body', 'product_price_id'];
  const price = await em.findOne(
    ProductPrice,
    { id: priceId, product: { organization: organizationId } },
    { populate: ['product'] },
  );
  if (!price) throw invalidFields([{ loc, msg: 'Price does not exist.', type: 'value_error' }]);
  if (price.isArchived)
    throw invalidFields([{ loc, msg: 'Price is archived.', type: 'value_error' }]);
  if (price.product.isArchived) {
    throw invalidFields([{ loc, msg: 'Product is archived.', type: 'value_error' }]);
  }
  return price.product;
}

/**
 * The organization's live discount, if it applies to one of the products (a discount restricted
 * to other products does not). Expired or used-up discounts are accepted: the checkout that the
 * link opens ignores a discount no longer redeemable.
 */
async function applicableDiscount(
  em: EntityManager,
  organizationId: string,
  discountId: string,
  products: Product[],
): Promise<Discount> {
  const discount = await em.findOne(Discount, {
    id: discountId,
    organization: organizationId,
    deletedAt: null,
  });
  const restrictions = discount ? await em.find(DiscountProduct, { discount }) : [];
  const applies =
    restrictions.length === 0 ||
    restrictions.some((restriction) =>
      products.some((product) => product.id === restriction.product.id),
    );
  if (!discount || !applies) {
    throw invalidFields([
      {
        loc: ['body', 'discount_id'],
        msg: 'Discount does not exist or is not applicable to this product.',
        type: 'value_error',
      },
    ]);
  }
  return discount;
}

/** A trial needs both its fields, and a recurring product to apply to. */
function checkTrial(link: CheckoutLink, products: Product[]) {
  const { trialInterval, trialIntervalCount } = link;
  if (trialInterval == null && trialIntervalCount == null) return;
  const missing = trialInterval == null ? 'trial_interval' : 'trial_interval_count';
  if (trialInterval == null || trialIntervalCount == null) {
    throw invalidFields([
      { loc: ['body', missing], msg: 'Field required with a trial.', type: 'missing' },
    ]);
  }
  if (!products.some((product) => product.recurringInterval != null)) {
    throw invalidFields([
      {
        loc: ['body', 'trial_interval'],
        msg: 'A trial needs a recurring product.',
        type: 'value_error',
      },
    ]);
  }
}

/** Which of the three create forms the request used; exactly one is allowed. */
function productsOfCreate(
  em: EntityManager,
  organizationId: string,
  input: CheckoutLinkCreateInput,
) {
  const sent = (['products', 'product_id', 'product_price_id'] as const).filter(
    (key) => input[key] !== undefined,
  );
  if (sent.length !== 1) {
    throw invalidFields([
      {
        loc: ['body', sent[1] ?? 'products'],
        msg: 'Send exactly one of products, product_id and product_price_id.',
        type: sent.length ? 'value_error' : 'missing',
      },
    ]);
  }
  if (input.products) {
    return offeredProducts(em, organizationId, input.products, ['body', 'products'], true);
  }
  if (input.product_id) {
    return offeredProducts(em, organizationId, [input.product_id], ['body', 'product_id'], false);
  }
  return productOfPrice(em, organizationId, input.product_price_id as string).then((product) => [
    product,
  ]);
}

function linkProducts(em: EntityManager, link: CheckoutLink, products: Product[]) {
  products.forEach((product, order) => {
    em.create(CheckoutLinkProduct, { checkoutLink: link, product, order });
  });
}

export function createCheckoutLink(
  em: EntityManager,
  organizationId: string,
  input: CheckoutLinkCreateInput,
): Promise<CheckoutLink> {
  return em.transactional(async (tx) => {
    const products = await productsOfCreate(tx, organizationId, input);
    const discount = input.discount_id
      ? await applicableDiscount(tx, organizationId, input.discount_id, products)
      : null;
    const link = tx.create(CheckoutLink, {
      organization: organizationId,
      clientSecret: newClientSecret(),
      label: input.label ?? null,
      successUrl: input.success_url ?? null,
      allowDiscountCodes: input.allow_discount_codes,
      requireBillingAddress: input.require_billing_address,
      discount,
      trialInterval: input.trial_interval ?? null,
      trialIntervalCount: input.trial_interval_count ?? null,
      metadata: input.metadata ?? {},
    });
    checkTrial(link, products);
    linkProducts(tx, link, products);
    return link;
  });
}

/** The organization's live link; another organization's or a deleted one is not found. */
export async function getCheckoutLink(em: EntityManager, organizationId: string, id: string) {
  const link = await em.findOne(CheckoutLink, {
    id,
    organization: organizationId,
    deletedAt: null,
  });
  if (!link) throw resourceNotFound('Checkout link not found');
  return link;
}

async function productsOfLink(em: EntityManager, link: CheckoutLink): Promise<Product[]> {
  const rows = await em.find(
    CheckoutLinkProduct,
    { checkoutLink: link },
    { populate: ['product'], orderBy: { order: 'asc' } },
  );
  return rows.map((row) => row.product);
}

/**
 * Applies a seller's update. New `products` replace the offered ones; a discount is checked
 * against the products the link ends up with, and so is a trial. As in Polar, switching to
 * one-time products only drops the link's trial, unless the same request sets one.
 */
export function updateCheckoutLink(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: CheckoutLinkUpdateInput,
): Promise<CheckoutLink> {
  return em.transactional(async (tx) => {
    const link = await getCheckoutLink(tx, organizationId, id);
    let products: Product[];
    if (input.products) {
      products = await offeredProducts(
        tx,
        organizationId,
        input.products,
        ['body', 'products'],
        true,
      );
      await tx.nativeDelete(CheckoutLinkProduct, { checkoutLink: link });
      linkProducts(tx, link, products);
    } else {
      products = await productsOfLink(tx, link);
    }
    if (input.discount_id !== undefined) {
      link.discount = input.discount_id
        ? await applicableDiscount(tx, organizationId, input.discount_id, products)
        : null;
    }
    if (input.label !== undefined) link.label = input.label;
    if (input.success_url !== undefined) link.successUrl = input.success_url;
    if (input.allow_discount_codes != null) link.allowDiscountCodes = input.allow_discount_codes;
    if (input.require_billing_address != null) {
      link.requireBillingAddress = input.require_billing_address;
    }
    const setsTrial =
      input.trial_interval !== undefined || input.trial_interval_count !== undefined;
    if (!setsTrial && !products.some((product) => product.recurringInterval != null)) {
      link.trialInterval = null;
      link.trialIntervalCount = null;
    }
    if (input.trial_interval !== undefined) link.trialInterval = input.trial_interval;
    if (input.trial_interval_count !== undefined) {
      link.trialIntervalCount = input.trial_interval_count;
    }
    checkTrial(link, products);
    if (input.metadata) link.metadata = input.metadata;
    // Stamped now so the answer carries it (the flush's own stamp comes after serialization).
    link.modifiedAt = new Date();
    return link;
  });
}

/** Soft delete: the link stops resolving, its row stays for the checkouts it opened. */
export function deleteCheckoutLink(em: EntityManager, organizationId: string, id: string) {
  return em.transactional(async (tx) => {
    const link = await getCheckoutLink(tx, organizationId, id);
    link.deletedAt = new Date();
  });
}

/** One page of the organization's live links, optionally only those offering one of `productIds`. */
export function listCheckoutLinks(
  em: EntityManager,
  organizationId: string,
  { productIds, sorting, page }: ListQuery<{ productIds: string[] }, CheckoutLinkSortField>,
): Promise<[CheckoutLink[], number]> {
  return findPage(em, CheckoutLink, {
    where: [
      { organization: organizationId, deletedAt: null },
      productIds.length > 0 &&
        linkedToAny('checkout_link_products', 'checkout_link_id', 'product_id', productIds),
    ],
    sorting,
    sortKeys: {
      created_at: 'createdAt',
      label: 'label',
      success_url: 'successUrl',
      allow_discount_codes: 'allowDiscountCodes',
    },
    page,
  });
}

/**
 * Links as /v1 answers them: their products (with live prices, public benefits and medias) in
 * the link's order, and their discount; a fixed number of queries whatever the number of links.
 */
export async function serializeCheckoutLinks(
  em: EntityManager,
  links: CheckoutLink[],
  publicUrl: string,
) {
  if (links.length === 0) return [];
  await em.populate(links, ['discount']);
  const rows = await em.find(
    CheckoutLinkProduct,
    { checkoutLink: { $in: links.map((link) => link.id) } },
    { populate: ['product'], orderBy: { order: 'asc' } },
  );
  const products = [...new Map(rows.map((row) => [row.product.id, row.product])).values()];
  const offered = new Map(
    (await serializeProducts(em, products, publicUrl)).map((product) => [
      product.id,
      checkoutLinkProductWire(product),
    ]),
  );
  return links.map((link) => {
    const linkProducts = rows
      .filter((row) => row.checkoutLink.id === link.id)
      .map((row) => offered.get(row.product.id))
      .filter((product) => product !== undefined);
    return checkoutLinkWire(link, linkProducts, publicUrl);
  });
}
