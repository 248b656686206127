import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/core';
import { invalidField } from '../../core/errors.ts';
import { Discount, DiscountProduct, Product } from '../../db/entities/index.ts';
import { escapeLike, findPage, type ListQuery, textSearch } from '../../db/listing.ts';
import { resourceNotFound } from '../errors.ts';
import {
  type DiscountCreateInput,
  type DiscountUpdateInput,
  type DiscountWire,
  type discountSortFields,
  discountWire,
  durationInMonthsRequired,
} from './schemas.ts';

type DiscountSortField = (typeof discountSortFields)[number];

/** Discounts as /v1 answers them, with the products each is limited to, in one more query. */
export async function serializeDiscounts(
  em: EntityManager,
  discounts: Discount[],
): Promise<DiscountWire[]> {
  if (discounts.length === 0) return [];
  const links = await em.find(
    DiscountProduct,
    { discount: { $in: discounts.map((discount) => discount.id) } },
    { populate: ['product'], orderBy: [{ id: 'asc' }] },
  );
  const productsOf = new Map<string, Product[]>();
  for (const link of links) {
    const products = productsOf.get(link.discount.id) ?? [];
    products.push(link.product);
    productsOf.set(link.discount.id, products);
  }
  return discounts.map((discount) => discountWire(discount, productsOf.get(discount.id) ?? []));
}

/** A page of the organization's live discounts, with the total count. */
export function listDiscounts(
  em: EntityManager,
  organizationId: string,
  { query, sorting, page }: ListQuery<{ query: string | null | undefined }, DiscountSortField>,
): Promise<[Discount[], number]> {
  return findPage(em, Discount, {
    where: [{ organization: organizationId, deletedAt: null }, textSearch(['name', 'code'], query)],
    sorting,
    sortKeys: {
      created_at: 'createdAt',
      name: 'name',
      code: 'code',
      redemptions_count: 'redemptionsCount',
    },
    page,
  });
}

/** A live discount of the organization; deleted ones and other organizations' are not found. */
export async function getDiscount(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Discount> {
  const discount = await em.findOne(Discount, {
    id,
    organization: organizationId,
    deletedAt: null,
  });
  if (!discount) throw resourceNotFound('Discount not found');
  return discount;
}

const codeTaken = () => invalidField(['body', 'code'], 'Discount with this code already exists.');

/** Refuses a code another live discount of the organization uses, whatever its case. */
async function assertCodeFree(
  em: EntityManager,
  organizationId: string,
  code: string,
  exceptId?: string,
) {
  const other = await em.findOne(
    Discount,
    {
      organization: organizationId,
      deletedAt: null,
      code: { $ilike: escapeLike(code) },
      ...(exceptId && { id: { $ne: exceptId } }),
    },
    { fields: ['id'] },
  );
  if (other) throw codeTaken();
}

/**
 * Runs a write; a code taken by a concurrent write (the partial unique index on lower(code))
 * answers like one found taken beforehand.
 */
async function withFreeCode<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (
      error instanceof UniqueConstraintViolationException &&
      error.message.includes('discounts_organization_id_code_unique')
    ) {
      throw codeTaken();
    }
    throw error;
  }
}

/** Links `discount` to the organization's products `ids`; another id answers 422 at its index. */
async function linkProducts(
  em: EntityManager,
  organizationId: string,
  discount: Discount,
  ids: string[],
) {
  const products = await em.find(Product, { id: { $in: ids }, organization: organizationId });
  const found = new Map(products.map((product) => [product.id, product]));
  ids.forEach((id, index) => {
    const product = found.get(id);
    if (!product) throw invalidField(['body', 'products', index], 'Product not found.');
    em.create(DiscountProduct, { discount, product });
  });
}

/** Creates a discount; its code, if any, must be free in the organization. */
export function createDiscount(
  em: EntityManager,
  organizationId: string,
  input: DiscountCreateInput,
): Promise<Discount> {
  return withFreeCode(() =>
    em.transactional(async (tx) => {
      if (input.code) await assertCodeFree(tx, organizationId, input.code);
      const fixed = input.type === 'fixed';
      const discount = tx.create(Discount, {
        organization: organizationId,
        name: input.name,
        code: input.code ?? null,
        type: input.type,
        amount: fixed ? input.amount : null,
        currency: fixed ? input.currency : null,
        basisPoints: fixed ? null : input.basis_points,
        duration: input.duration,
        durationInMonths: input.duration === 'repeating' ? input.duration_in_months : null,
        startsAt: input.starts_at ?? null,
        endsAt: input.ends_at ?? null,
        maxRedemptions: input.max_redemptions ?? null,
        metadata: input.metadata ?? {},
      });
      await linkProducts(tx, organizationId, discount, input.products ?? []);
      return discount;
    }),
  );
}

const redeemedMessage =
  'This field cannot be changed because the discount has already been redeemed.';

/**
 * Changes a discount. Once redeemed, what it takes off (its type, amount or basis points) is
 * fixed, as in Polar. The result must still be whole: a fixed discount has an amount, a
 * percentage its basis points, a repeating one its months, and its window stays in order.
 * `products` replaces the whole restriction.
 */
export function updateDiscount(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: DiscountUpdateInput,
): Promise<Discount> {
  return withFreeCode(() =>
    em.transactional(async (tx) => {
      const discount = await getDiscount(tx, organizationId, id);
      const type = input.type ?? discount.type;
      const amount = input.amount ?? discount.amount;
      const basisPoints = input.basis_points ?? discount.basisPoints;
      if (discount.redemptionsCount > 0) {
        const changed: [field: string, changes: boolean][] = [
          ['type', type !== discount.type],
          ['amount', type === 'fixed' && amount !== discount.amount],
          ['basis_points', type === 'percentage' && basisPoints !== discount.basisPoints],
        ];
        const field = changed.find(([, changes]) => changes)?.[0];
        if (field) throw invalidField(['body', field], redeemedMessage);
      }
      if (type === 'fixed' && amount == null) {
        throw invalidField(['body', 'amount'], 'Field required');
      }
      if (type === 'percentage' && basisPoints == null) {
        throw invalidField(['body', 'basis_points'], 'Field required');
      }
      discount.type = type;
      // Only the fields of the discount's type are kept: the currency sent along with a
      // percentage discount (the SDK always sends one) is ignored.
      discount.amount = type === 'fixed' ? amount : null;
      discount.currency = type === 'fixed' ? (input.currency ?? discount.currency ?? 'usd') : null;
      discount.basisPoints = type === 'percentage' ? basisPoints : null;

      const duration = input.duration ?? discount.duration;
      const months = input.duration_in_months ?? discount.durationInMonths;
      if (duration === 'repeating' && months == null) {
        throw invalidField(['body', 'duration_in_months'], durationInMonthsRequired);
      }
      discount.duration = duration;
      discount.durationInMonths = duration === 'repeating' ? months : null;

      if (input.starts_at !== undefined) discount.startsAt = input.starts_at;
      if (input.ends_at !== undefined) discount.endsAt = input.ends_at;
      if (discount.startsAt && discount.endsAt && discount.startsAt >= discount.endsAt) {
        throw invalidField(['body', 'starts_at'], 'starts_at must be before ends_at');
      }

      if (input.code) await assertCodeFree(tx, organizationId, input.code, discount.id);
      if (input.code !== undefined) discount.code = input.code;
      if (input.name) discount.name = input.name;
      if (input.max_redemptions !== undefined) discount.maxRedemptions = input.max_redemptions;
      if (input.metadata) discount.metadata = input.metadata;
      if (input.products) {
        await tx.nativeDelete(DiscountProduct, { discount: discount.id });
        await linkProducts(tx, organizationId, discount, input.products);
      }
      discount.modifiedAt = new Date();
      return discount;
    }),
  );
}

/** Deletes a discount softly: it stays on what it was redeemed for, and its code is free again. */
export function deleteDiscount(em: EntityManager, organizationId: string, id: string) {
  return em.transactional(async (tx) => {
    const discount = await getDiscount(tx, organizationId, id);
    discount.deletedAt = new Date();
  });
}
