import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ValidationIssue } from '../../core/errors.ts';
import {
  type Checkout,
  Discount,
  DiscountProduct,
  DiscountRedemption,
} from '../../db/entities/index.ts';
import { escapeLike } from '../../db/listing.ts';
import { type DiscountRefusal, discountRefusal } from '../../domain/discounts.ts';
import { invalidFields } from '../errors.ts';
import { type CheckoutChanges, issue } from './changes.ts';

/** A discount of the organization with what decides whether it may be redeemed now. */
export async function discountWithProducts(em: EntityManager, where: FilterQuery<Discount>) {
  const discount = await em.findOne(Discount, { $and: [where, { deletedAt: null }] });
  if (!discount) return null;
  const restrictions = await em.find(DiscountProduct, { discount }, { fields: ['product'] });
  const productIds = restrictions.map((restriction) => restriction.product.id);
  return { discount, productIds };
}

type DiscountWithProducts = NonNullable<Awaited<ReturnType<typeof discountWithProducts>>>;

/** Why the discount may not be redeemed for the product now; null when it may. */
export function refusalOf(found: DiscountWithProducts, productId: string) {
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

/** The discount the seller names by id (null removes it), for the product selected now. */
async function applyDiscountId(
  em: EntityManager,
  checkout: Checkout,
  discountId: string | null,
  productId: string,
): Promise<ValidationIssue[]> {
  const found = discountId
    ? await discountWithProducts(em, { id: discountId, organization: checkout.organization.id })
    : null;
  if (discountId && (!found || refusalOf(found, productId))) {
    return [
      issue(
        ['body', 'discount_id'],
        'Discount does not exist or is not applicable to this product.',
      ),
    ];
  }
  checkout.discount = found?.discount ?? null;
  return [];
}

/** The discount the buyer names by its code (empty removes it), where codes are accepted. */
async function applyDiscountCode(
  em: EntityManager,
  checkout: Checkout,
  code: string | null,
  productId: string,
): Promise<ValidationIssue[]> {
  if (!code) {
    checkout.discount = null;
    return [];
  }
  if (!checkout.allowDiscountCodes) {
    return [issue(['body', 'discount_code'], 'Discount codes are not accepted in this checkout.')];
  }
  const found = await discountWithProducts(em, {
    organization: checkout.organization.id,
    code: { $ilike: escapeLike(code) },
  });
  const refusal = found ? refusalOf(found, productId) : 'unknown';
  if (refusal) return [issue(['body', 'discount_code'], discountRefusalMessages[refusal])];
  checkout.discount = found?.discount ?? null;
  return [];
}

/**
 * The discount kept from before: one not for the product selected now falls away, as in
 * Polar; one that ended or ran out meanwhile is kept until confirm (`confirming`), which
 * refuses it rather than charge the full price.
 */
async function checkKeptDiscount(
  em: EntityManager,
  checkout: Checkout,
  discountId: string,
  productId: string,
  confirming: boolean,
): Promise<ValidationIssue[]> {
  const found = await discountWithProducts(em, { id: discountId });
  const refusal = found ? refusalOf(found, productId) : 'product_not_applicable';
  if (refusal === 'product_not_applicable') checkout.discount = null;
  else if (refusal && confirming) {
    return [issue(['body', 'discount_id'], discountRefusalMessages[refusal])];
  }
  return [];
}

/**
 * The discount: named by the seller, or by its code by the buyer, for the product selected now
 * (`productId`); else the one kept from before, checked again.
 */
export async function applyDiscountChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  productId: string,
  confirming: boolean,
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (changes.discount_id !== undefined) {
    issues.push(...(await applyDiscountId(em, checkout, changes.discount_id, productId)));
  }
  if (changes.discount_code !== undefined) {
    issues.push(...(await applyDiscountCode(em, checkout, changes.discount_code, productId)));
  }
  const kept = changes.discount_id === undefined && changes.discount_code === undefined;
  if (kept && checkout.discount) {
    issues.push(
      ...(await checkKeptDiscount(em, checkout, checkout.discount.id, productId, confirming)),
    );
  }
  return issues;
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
 * `codeField`: where the buyer named it (`discount_code` or `discount_id`), for the refusal.
 * A checkout never confirmed (`open`) without a discount has nothing to redeem nor give back:
 * no query.
 */
export async function redeemDiscount(
  tx: EntityManager,
  checkout: Checkout,
  codeField: 'discount_code' | 'discount_id',
): Promise<void> {
  const discountId = checkout.discount?.id ?? null;
  if (!discountId && checkout.status === 'open') return;
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
    throw invalidFields([issue(['body', codeField], discountRefusalMessages.exhausted)]);
  }
  tx.create(DiscountRedemption, { discount: discountId, checkout });
}
