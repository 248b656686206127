import { z } from 'zod';
import type { Discount, Product } from '../../db/entities/index.ts';
import { discountDurations, discountLimits, discountTypes } from '../../domain/discounts.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { productBaseWire, productBaseWireSchema } from '../products/schemas.ts';
import {
  dateTimeInput,
  dateTimeWireSchema,
  isoDateTime,
  isoDateTimeOrNull,
  metadataWireSchema,
} from '../wire.ts';

export const discountSortFields = ['created_at', 'name', 'code', 'redemptions_count'] as const;

/** The message Polar answers a repeating discount without its number of months. */
export const durationInMonthsRequired =
  '`duration_in_months` is required when `duration` is `repeating`.';

const { codeLength } = discountLimits;
const codeLengthMessage = `Code must be between ${codeLength.min} and ${codeLength.max} characters long.`;

/** A redemption code: letters and digits only, 3 to 256 of them; empty means none. */
const codeInput = z
  .string()
  .nullable()
  .transform((code) => code || null)
  .pipe(
    z
      .string()
      .regex(/^[\p{L}\p{N}]*$/u, 'Code must contain only alphanumeric characters.')
      .min(codeLength.min, codeLengthMessage)
      .max(codeLength.max, codeLengthMessage)
      .nullable(),
  );

const nameInput = z.string().min(1).max(255);
const durationInMonthsInput = z.number().int().min(1).max(discountLimits.maxDurationInMonths);
const amountInput = z.number().int().min(0).max(discountLimits.maxAmount);
// Amounts are in US cents: the only currency of this line, spelled as Polar spells it.
const currencyInput = z.literal('usd', 'Only the currency usd is supported.');
const basisPointsInput = z.number().int().min(1).max(discountLimits.maxBasisPoints);
const maxRedemptionsInput = z.number().int().min(1);
/** The products a discount is limited to (none: all); a repeated id counts once. */
const productIdsInput = z.array(z.uuid()).transform((ids) => [...new Set(ids)]);

/** Redeemable from `starts_at` to `ends_at`: refused when they are not in that order. */
function windowInOrder(
  window: { starts_at?: Date | null; ends_at?: Date | null },
  ctx: z.RefinementCtx,
) {
  const { starts_at, ends_at } = window;
  if (starts_at && ends_at && starts_at.getTime() >= ends_at.getTime()) {
    ctx.addIssue({
      code: 'custom',
      path: ['starts_at'],
      message: 'starts_at must be before ends_at',
    });
  }
}

/**
 * Polar's `DiscountCreate`: a fixed `amount` (with its currency) or `basis_points` per `type`,
 * and `duration_in_months` when the duration is `repeating` (ignored otherwise).
 */
export const discountCreateInput = z
  .object({
    name: nameInput,
    type: z.enum(discountTypes),
    duration: z.enum(discountDurations),
    duration_in_months: durationInMonthsInput.nullable().optional(),
    amount: amountInput.optional(),
    currency: currencyInput.default('usd'),
    basis_points: basisPointsInput.optional(),
    code: codeInput.optional(),
    starts_at: dateTimeInput.nullable().optional(),
    ends_at: dateTimeInput.nullable().optional(),
    max_redemptions: maxRedemptionsInput.nullable().optional(),
    products: productIdsInput.nullable().optional(),
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullable().optional(),
  })
  .superRefine((input, ctx) => {
    if (input.type === 'fixed' && input.amount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'Field required' });
    }
    if (input.type === 'percentage' && input.basis_points === undefined) {
      ctx.addIssue({ code: 'custom', path: ['basis_points'], message: 'Field required' });
    }
    if (input.duration === 'repeating' && input.duration_in_months == null) {
      ctx.addIssue({
        code: 'custom',
        path: ['duration_in_months'],
        message: durationInMonthsRequired,
      });
    }
    windowInOrder(input, ctx);
  });
export type DiscountCreateInput = z.infer<typeof discountCreateInput>;

/**
 * Polar's `DiscountUpdate`. Absent keys keep their value; null clears the code, window and
 * redemption limit, and means "keep" elsewhere. The SDK always sends `currency: "usd"`, also for
 * percentage discounts, where it is ignored.
 */
export const discountUpdateInput = z
  .object({
    name: nameInput.nullable().optional(),
    code: codeInput.optional(),
    starts_at: dateTimeInput.nullable().optional(),
    ends_at: dateTimeInput.nullable().optional(),
    max_redemptions: maxRedemptionsInput.nullable().optional(),
    duration: z.enum(discountDurations).nullable().optional(),
    duration_in_months: durationInMonthsInput.nullable().optional(),
    type: z.enum(discountTypes).nullable().optional(),
    amount: amountInput.nullable().optional(),
    currency: currencyInput.nullable().optional(),
    basis_points: basisPointsInput.nullable().optional(),
    products: productIdsInput.nullable().optional(),
    metadata: metadataInput.optional(),
  })
  .superRefine(windowInOrder);
export type DiscountUpdateInput = z.infer<typeof discountUpdateInput>;

export const discountListQuery = z.object({ query: z.string().nullable().optional() }).loose();

const discountWireShape = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  metadata: metadataWireSchema,
  name: z.string(),
  code: z.string().nullable(),
  starts_at: dateTimeWireSchema.nullable(),
  ends_at: dateTimeWireSchema.nullable(),
  max_redemptions: z.int().nullable(),
  redemptions_count: z.int(),
  organization_id: z.uuid(),
};
const fixed = { type: z.literal('fixed'), amount: z.int(), currency: z.string() };
const percentage = { type: z.literal('percentage'), basis_points: z.int() };
const once = { duration: z.enum(['once', 'forever']) };
const repeating = { duration: z.literal('repeating'), duration_in_months: z.int() };

/** Each variant of a discount: fixed or percentage, repeating (for some months) or not. */
const discountVariants = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.union([
    z.object({ ...shape, ...fixed, ...once }),
    z.object({ ...shape, ...fixed, ...repeating }),
    z.object({ ...shape, ...percentage, ...once }),
    z.object({ ...shape, ...percentage, ...repeating }),
  ]);

/** Polar's `DiscountBase`: a discount without its products, as others embed it. */
export const discountBaseWireSchema = discountVariants(discountWireShape).meta({
  id: 'DiscountBase',
});

/** Polar's `Discount`: with the products it is for (none: all of them). */
export const discountWireSchema = discountVariants({
  ...discountWireShape,
  products: z.array(productBaseWireSchema),
}).meta({ id: 'Discount' });

/**
 * A discount without its products (Polar's `DiscountBase` / `DiscountMinimal`), as checkouts,
 * orders and subscriptions embed it. Its variant follows type and duration: a fixed discount
 * carries `amount` and `currency`, a percentage `basis_points`, and only a repeating one
 * `duration_in_months` (the SDK tells the variants apart by these keys).
 */
export function discountBaseWire(discount: Discount): z.input<typeof discountBaseWireSchema> {
  const reduction =
    discount.type === 'fixed'
      ? {
          type: 'fixed' as const,
          amount: discount.amount ?? 0,
          currency: discount.currency ?? 'usd',
        }
      : { type: 'percentage' as const, basis_points: discount.basisPoints ?? 0 };
  const term =
    discount.duration === 'repeating'
      ? { duration: 'repeating' as const, duration_in_months: discount.durationInMonths ?? 1 }
      : { duration: discount.duration };
  return {
    id: discount.id,
    created_at: isoDateTime(discount.createdAt),
    modified_at: isoDateTimeOrNull(discount.modifiedAt),
    metadata: discount.metadata,
    name: discount.name,
    code: discount.code ?? null,
    starts_at: isoDateTimeOrNull(discount.startsAt),
    ends_at: isoDateTimeOrNull(discount.endsAt),
    max_redemptions: discount.maxRedemptions ?? null,
    redemptions_count: discount.redemptionsCount,
    organization_id: discount.organization.id,
    ...reduction,
    ...term,
  };
}
export type DiscountBaseWire = ReturnType<typeof discountBaseWire>;

/** A discount as /v1/discounts answers it (Polar's `Discount`): with the products it is for. */
export function discountWire(
  discount: Discount,
  products: Product[],
): z.input<typeof discountWireSchema> {
  return { ...discountBaseWire(discount), products: products.map(productBaseWire) };
}
export type DiscountWire = ReturnType<typeof discountWire>;
