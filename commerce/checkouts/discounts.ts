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

/**
 * The discount: named by the seller, or by its code by the buyer, for the product selected now
 * (`productId`). A discount kept from before but not for that product falls away, as in Polar;
 * one that ended or ran out meanwhile is kept until confirm (`confirming`), which refuses it
 * rather than charge the full price.
 */
export async function applyDiscountChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  productId: string,
  confirming: boolean,
): Promise<ValidationIssue[]> {
  const organizationId = checkout.organization.id;
  const issues: ValidationIssue[] = [];
  if (changes.discount_id !== undefined) {
    const found = changes.discount_id
      ? await discountWithProducts(em, { id: changes.discount_id, organization: organizationId })
      : null;
    const refusal = found && refusalOf(found, productId);
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
      const refusal = found ? refusalOf(found, productId) : 'unknown';
      if (refusal) issues.push(issue(['body', 'discount_code'], discountRefusalMessages[refusal]));
      else checkout.discount = found?.discount ?? null;
    }
  }
  if (
    checkout.discount &&
    changes.discount_id === undefined &&
    changes.discount_code === undefined
  ) {
    const found = await discountWithProducts(em, { id: checkout.discount.id });
    const refusal = found ? refusalOf(found, productId) : 'product_not_applicable';
    if (refusal === 'product_not_applicable') checkout.discount = null;
    else if (refusal && confirming) {
      issues.push(issue(['body', 'discount_id'], discountRefusalMessages[refusal]));
    }
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
 */
export async function redeemDiscount(
  tx: EntityManager,
  checkout: Checkout,
  codeField: 'discount_code' | 'discount_id',
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
    throw invalidFields([issue(['body', codeField], discountRefusalMessages.exhausted)]);
  }
  tx.create(DiscountRedemption, { discount: discountId, checkout });
}
