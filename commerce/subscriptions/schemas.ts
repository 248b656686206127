import { z } from 'zod';
import type { Meter, Subscription } from '../../db/entities/index.ts';
import { cancellationCauses, renewalRecoverers } from '../../db/entities/subscription.ts';
import { declineReasonOf } from '../../domain/decline-reasons.ts';
import { recurringIntervals } from '../../domain/prices.ts';
import type { SubscriptionChange } from '../../domain/subscription-schedule.ts';
import {
  cancellationFields,
  cancellationReasons,
  productChangeInput,
  seatsChangeInput,
  subscriptionStatuses,
} from '../../domain/subscriptions.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import { discountBaseWire, discountBaseWireSchema } from '../discounts/schemas.ts';
import { meterWire, meterWireSchema } from '../meters/schemas.ts';
import { type OrganizationWire, organizationWireSchema } from '../organizations/schemas.ts';
import {
  customerProductWireSchema,
  type PriceWire,
  priceWireSchema,
  productWireSchema,
} from '../products/schemas.ts';
import { customerProductWire, type ProductWire } from '../products/service.ts';
import {
  dateTimeInput,
  dateTimeWireSchema,
  isoDateTime,
  isoDateTimeOrNull,
  metadataWireSchema,
} from '../wire.ts';
import type { CurrentMeterUsage } from './renewal-bill.ts';

export const subscriptionSortFields = [
  'customer',
  'status',
  'started_at',
  'current_period_end',
  'amount',
  'product',
  'discount',
] as const;

/** Polar's `OrderSubscription`: the subscription's own fields. */
export const subscriptionCoreWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    metadata: metadataWireSchema,
    amount: z.int(),
    /** The seats a seat-based price bills (later Polar's `seats`); null for other prices. */
    seats: z.int().nullable(),
    currency: z.string(),
    recurring_interval: z.enum(recurringIntervals),
    status: z.enum(subscriptionStatuses),
    current_period_start: dateTimeWireSchema,
    current_period_end: dateTimeWireSchema.nullable(),
    trial_start: dateTimeWireSchema.nullable(),
    trial_end: dateTimeWireSchema.nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: dateTimeWireSchema.nullable(),
    started_at: dateTimeWireSchema.nullable(),
    ends_at: dateTimeWireSchema.nullable(),
    ended_at: dateTimeWireSchema.nullable(),
    customer_id: z.uuid(),
    product_id: z.uuid(),
    discount_id: z.uuid().nullable(),
    checkout_id: z.uuid().nullable(),
    customer_cancellation_reason: z.enum(cancellationReasons).nullable(),
    customer_cancellation_comment: z.string().nullable(),
  })
  .meta({ id: 'OrderSubscription' });
export type SubscriptionCoreWire = z.input<typeof subscriptionCoreWireSchema>;

/**
 * The subscription's own fields (Polar's `OrderSubscription`, embedded by orders): no customer,
 * product, discount, prices or meters.
 */
export function subscriptionCoreWire(subscription: Subscription): SubscriptionCoreWire {
  return {
    id: subscription.id,
    created_at: isoDateTime(subscription.createdAt),
    modified_at: isoDateTimeOrNull(subscription.modifiedAt),
    metadata: subscription.metadata,
    amount: subscription.amount,
    seats: subscription.seats ?? null,
    currency: subscription.currency,
    recurring_interval: subscription.recurringInterval,
    status: subscription.status,
    current_period_start: isoDateTime(subscription.currentPeriodStart),
    current_period_end: isoDateTimeOrNull(subscription.currentPeriodEnd),
    trial_start: isoDateTimeOrNull(subscription.trialStart),
    trial_end: isoDateTimeOrNull(subscription.trialEnd),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: isoDateTimeOrNull(subscription.canceledAt),
    started_at: isoDateTimeOrNull(subscription.startedAt),
    ends_at: isoDateTimeOrNull(subscription.endsAt),
    ended_at: isoDateTimeOrNull(subscription.endedAt),
    customer_id: subscription.customer.id,
    product_id: subscription.product.id,
    discount_id: subscription.discount?.id ?? null,
    checkout_id: subscription.checkoutId ?? null,
    customer_cancellation_reason: subscription.customerCancellationReason ?? null,
    customer_cancellation_comment: subscription.customerCancellationComment ?? null,
  };
}

const subscriptionMeterWireShape = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  consumed_units: z.number(),
  credited_units: z.int(),
  amount: z.int(),
  meter_id: z.uuid(),
};

/** Polar's `SubscriptionMeter`. */
export const subscriptionMeterWireSchema = z
  .object({ ...subscriptionMeterWireShape, meter: meterWireSchema })
  .meta({ id: 'SubscriptionMeter' });

/**
 * A metered price's usage in the subscription's current period (Polar's `SubscriptionMeter`):
 * named after the subscription price, with the meter it reads (loaded).
 */
export function subscriptionMeterWire(
  subscription: Subscription,
  usage: CurrentMeterUsage,
  meter: Meter,
): z.input<typeof subscriptionMeterWireSchema> {
  return {
    id: usage.subscriptionPriceId,
    created_at: isoDateTime(subscription.createdAt),
    modified_at: isoDateTimeOrNull(subscription.modifiedAt),
    consumed_units: Number(usage.consumedUnits),
    credited_units: usage.creditedUnits,
    amount: usage.amount,
    meter_id: meter.id,
    meter: meterWire(meter),
  };
}
export type SubscriptionMeterWire = z.input<typeof subscriptionMeterWireSchema>;

/** Tollgate's own fields on how its renewals' payment went (see renewalRecoveryWire). */
const renewalRecoveryWireShape = {
  last_payment_attempt_at: dateTimeWireSchema.nullable(),
  last_payment_decline_reason: z.string().nullable(),
  recovered_at: dateTimeWireSchema.nullable(),
  recovered_by: z.enum(renewalRecoverers).nullable(),
  cancellation_cause: z.enum(cancellationCauses).nullable(),
};

/** Polar's `Subscription`, with Tollgate's renewal recovery fields and `test_clock_id`. */
export const subscriptionWireSchema = subscriptionCoreWireSchema
  .extend({
    custom_field_data: z.record(z.string(), z.unknown()),
    customer: customerWireSchema,
    product: productWireSchema,
    discount: discountBaseWireSchema.nullable(),
    prices: z.array(priceWireSchema),
    meters: z.array(subscriptionMeterWireSchema),
    ...renewalRecoveryWireShape,
    test_clock_id: z.uuid().nullable(),
  })
  .meta({ id: 'Subscription' });

/**
 * A subscription as /v1 answers it (Polar's `Subscription`): with its customer and discount
 * (loaded), its product, the prices it bills and its metered usage, as serialized by the caller.
 */
export function subscriptionWire(
  subscription: Subscription,
  product: ProductWire,
  prices: PriceWire[],
  meters: SubscriptionMeterWire[],
): SubscriptionWire {
  return {
    ...subscriptionCoreWire(subscription),
    custom_field_data: subscription.customFieldData,
    customer: customerWire(subscription.customer),
    product,
    discount: subscription.discount ? discountBaseWire(subscription.discount) : null,
    prices,
    meters,
    ...renewalRecoveryWire(subscription),
    /** Tollgate's own: the sandbox clock its time follows (the dashboard badges it); null: real time. */
    test_clock_id: subscription.testClock?.id ?? null,
  };
}
export type SubscriptionWire = z.input<typeof subscriptionWireSchema>;

/**
 * How its renewals' payment went (Tollgate's own fields, for finance; Polar's SDK ignores
 * them): the last charge attempt and its readable decline reason, the last failed renewal paid
 * after all (when, by its clock, and by whom: `customer` from the portal, `finance`, or a
 * scheduled `dunning` retry), and `cancellation_cause: "payment_failed"` when dunning ended it.
 */
export function renewalRecoveryWire(
  subscription: Subscription,
): z.input<z.ZodObject<typeof renewalRecoveryWireShape>> {
  return {
    last_payment_attempt_at: isoDateTimeOrNull(subscription.lastPaymentAttemptAt),
    last_payment_decline_reason: declineReasonOf(subscription.lastPaymentError?.code),
    recovered_at: isoDateTimeOrNull(subscription.recoveredAt),
    recovered_by: subscription.recoveredBy ?? null,
    cancellation_cause: subscription.cancellationCause ?? null,
  };
}

export const customerSubscriptionSortFields = [
  'started_at',
  'amount',
  'status',
  'organization',
  'product',
] as const;

export const customerSubscriptionListQuery = z
  .object({ query: z.string().trim().min(1).optional() })
  .loose();

/** Polar's `CustomerSubscriptionProduct`: the product as buyers see it, with its organization. */
export const customerSubscriptionProductWireSchema = customerProductWireSchema
  .extend({ organization: organizationWireSchema })
  .meta({ id: 'CustomerSubscriptionProduct' });

/** Polar's `CustomerSubscriptionMeter`: the usage, its meter named only. */
export const customerSubscriptionMeterWireSchema = z
  .object({
    ...subscriptionMeterWireShape,
    meter: z.object({
      id: z.uuid(),
      created_at: dateTimeWireSchema,
      modified_at: dateTimeWireSchema.nullable(),
      name: z.string(),
    }),
  })
  .meta({ id: 'CustomerSubscriptionMeter' });

/** Polar's `CustomerSubscription`, with Tollgate's renewal recovery fields. */
export const customerSubscriptionWireSchema = subscriptionCoreWireSchema
  .omit({ metadata: true })
  .extend({
    product: customerSubscriptionProductWireSchema,
    prices: z.array(priceWireSchema),
    meters: z.array(customerSubscriptionMeterWireSchema),
    ...renewalRecoveryWireShape,
    is_polar_managed: z.boolean(),
  })
  .meta({ id: 'CustomerSubscription' });

/**
 * A subscription as its customer sees it (Polar's `CustomerSubscription`): /v1's subscription
 * without the seller's metadata, custom field data, customer and discount; the product as
 * buyers see it, with its organization; each meter named only. Every subscription here is run
 * by Tollgate's own workflows (`is_polar_managed`).
 */
export function customerSubscriptionWire(
  subscription: SubscriptionWire,
  organization: OrganizationWire,
): CustomerSubscriptionWire {
  const {
    metadata: _metadata,
    test_clock_id: _testClockId,
    custom_field_data: _customFieldData,
    customer: _customer,
    discount: _discount,
    product,
    meters,
    ...visible
  } = subscription;
  return {
    ...visible,
    product: { ...customerProductWire(product), organization },
    meters: meters.map(({ meter, ...usage }) => ({
      ...usage,
      meter: {
        id: meter.id,
        created_at: meter.created_at,
        modified_at: meter.modified_at,
        name: meter.name,
      },
    })),
    is_polar_managed: true,
  };
}
export type CustomerSubscriptionWire = z.input<typeof customerSubscriptionWireSchema>;

/** The `status` list filter (repeatable): finance lists the past_due and unpaid ones. */
export const subscriptionStatusFilter = z.enum(subscriptionStatuses);

/**
 * A body that carries exactly one of `variants`, each named by the key only it has: that key
 * picks the schema that parses the whole body (its own issues located at its fields); no key,
 * or two, answer 422 at the body.
 */
function oneVariantOf<Variants extends Record<string, z.ZodObject>>(variants: Variants) {
  const keys = Object.keys(variants);
  const schemas = Object.values(variants) as [
    Variants[keyof Variants],
    ...Variants[keyof Variants][],
  ];
  return z
    .looseObject({})
    .check((ctx) => {
      const present = keys.filter((key) => key in ctx.value);
      if (present.length !== 1) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message:
            `Exactly one of ${keys.join(', ')} is required` +
            (present.length ? `, not ${present.join(' and ')}.` : '.'),
        });
      }
    })
    .pipe(z.union(schemas));
}

/** PATCH /v1/subscriptions/{id}'s body (Polar's `SubscriptionUpdate` variants) as the change the subscription workflow applies. */
export const subscriptionUpdateInput = oneVariantOf({
  product_id: productChangeInput,
  seats: seatsChangeInput,
  discount_id: z.strictObject({ discount_id: z.uuid().nullable() }),
  trial_end: z.strictObject({ trial_end: dateTimeInput }),
  cancel_at_period_end: z.strictObject({
    cancel_at_period_end: z.boolean(),
    ...cancellationFields,
  }),
  revoke: z.strictObject({ revoke: z.literal(true), ...cancellationFields }),
}).transform((body): SubscriptionChange => {
  const reason =
    'customer_cancellation_reason' in body ? (body.customer_cancellation_reason ?? null) : null;
  const comment =
    'customer_cancellation_comment' in body ? (body.customer_cancellation_comment ?? null) : null;
  if ('product_id' in body) {
    return {
      kind: 'product',
      productId: body.product_id,
      prorationBehavior: body.proration_behavior ?? null,
    };
  }
  if ('seats' in body) {
    return {
      kind: 'seats',
      seats: body.seats,
      prorationBehavior: body.proration_behavior ?? null,
    };
  }
  if ('discount_id' in body) return { kind: 'discount', discountId: body.discount_id };
  if ('trial_end' in body) return { kind: 'trial_end', trialEnd: body.trial_end.toISOString() };
  if ('revoke' in body) return { kind: 'revoke', reason, comment };
  return {
    kind: 'cancel_at_period_end',
    cancelAtPeriodEnd: body.cancel_at_period_end,
    reason,
    comment,
  };
});

/**
 * PATCH /v1/customer-portal/subscriptions/{id}'s body (Polar's `CustomerSubscriptionUpdate`): a
 * plan or seats change (billed as the organization's proration behaviour says: the customer
 * does not choose), or a cancel at period end with the customer's reason, or taking it back.
 */
export const customerSubscriptionUpdateInput = oneVariantOf({
  product_id: z.strictObject({ product_id: z.uuid() }),
  seats: seatsChangeInput.pick({ seats: true }),
  cancel_at_period_end: z.strictObject({
    cancel_at_period_end: z.boolean(),
    cancellation_reason: cancellationFields.customer_cancellation_reason,
    cancellation_comment: cancellationFields.customer_cancellation_comment,
  }),
}).transform((body): SubscriptionChange => {
  if ('product_id' in body) {
    return { kind: 'product', productId: body.product_id, prorationBehavior: null };
  }
  if ('seats' in body) return { kind: 'seats', seats: body.seats, prorationBehavior: null };
  return {
    kind: 'cancel_at_period_end',
    cancelAtPeriodEnd: body.cancel_at_period_end,
    reason: body.cancellation_reason ?? null,
    comment: body.cancellation_comment ?? null,
  };
});

/** The statuses of a subscription whose renewal failed (the failed-renewals `status` filter). */
export const failedRenewalStatuses = ['past_due', 'unpaid'] as const;
export const failedRenewalStatusFilter = z.enum(failedRenewalStatuses);

/** The finance actions on a failed renewal, as POST /v1/subscriptions/{id}/dunning/{action} names them. */
export const dunningActionNames = ['retry', 'cancel', 'resolve'] as const;
export type DunningActionName = (typeof dunningActionNames)[number];

/** The recovered-renewals `recovered_by` filter (repeatable). */
export const recoveredByFilter = z.enum(renewalRecoverers);

export const failedRenewalSortFields = [
  'customer',
  'amount',
  'past_due_at',
  'next_payment_attempt_at',
  'dunning_attempts',
] as const;

/** A failed renewal as finance lists it (Tollgate's own; see failedRenewalWire). */
export const failedRenewalWireSchema = subscriptionCoreWireSchema
  .extend({
    customer_email: z.string(),
    product_name: z.string(),
    past_due_at: dateTimeWireSchema.nullable(),
    dunning_attempts: z.int(),
    next_payment_attempt_at: dateTimeWireSchema.nullable(),
    last_payment_error: z.object({ code: z.string(), message: z.string() }).nullable(),
    amount_at_risk: z.int().nullable(),
    ...renewalRecoveryWireShape,
    test_clock_id: z.uuid().nullable(),
  })
  .meta({ id: 'FailedRenewal' });

/**
 * A subscription whose renewal failed, as finance lists it (Tollgate's own: Polar's wire has no
 * dunning): its own fields, whom and what it bills (customer and product loaded), its dunning,
 * and what the renewal order still pending would bring in (null: none is pending).
 */
export function failedRenewalWire(
  subscription: Subscription,
  amountAtRisk: number | null,
): FailedRenewalWire {
  return {
    ...subscriptionCoreWire(subscription),
    customer_email: subscription.customer.email,
    product_name: subscription.product.name,
    past_due_at: isoDateTimeOrNull(subscription.pastDueAt),
    dunning_attempts: subscription.dunningAttempts,
    next_payment_attempt_at: isoDateTimeOrNull(subscription.nextPaymentAttemptAt),
    last_payment_error: subscription.lastPaymentError ?? null,
    amount_at_risk: amountAtRisk,
    ...renewalRecoveryWire(subscription),
    test_clock_id: subscription.testClock?.id ?? null,
  };
}
export type FailedRenewalWire = z.input<typeof failedRenewalWireSchema>;

/** The failed renewals of one currency: how many, and what their pending orders total. */
export const failedRenewalTotalWireSchema = z
  .object({ currency: z.string(), count: z.int(), amount_at_risk: z.int() })
  .meta({ id: 'FailedRenewalTotal' });
export type FailedRenewalTotal = z.input<typeof failedRenewalTotalWireSchema>;

/** The state of a subscription's workflow as GET /v1/subscriptions/{id}/workflow answers it. */
export const subscriptionWorkflowStateWireSchema = z
  .object({
    schedule: z.object({
      status: z.enum(subscriptionStatuses),
      currentPeriodStart: z.string(),
      currentPeriodEnd: z.string().nullable(),
      trialEnd: z.string().nullable(),
      cancelAtPeriodEnd: z.boolean(),
      pastDueAt: z.string().nullable(),
      dunningAttempts: z.int(),
      nextPaymentAttemptAt: z.string().nullable(),
      lastPaymentError: z.object({ code: z.string(), message: z.string() }).nullable(),
      testClock: z.object({ id: z.uuid(), frozenTime: z.string() }).nullable(),
    }),
    nextAction: z.object({
      kind: z.enum(['trial_conversion', 'renewal', 'payment_retry', 'end', 'none']),
      at: z.string().nullable(),
    }),
    periods: z.array(
      z.object({
        start: z.string(),
        end: z.string(),
        orderId: z.uuid().nullable(),
        status: z.enum(['paid', 'failed', 'free']),
      }),
    ),
  })
  .meta({ id: 'SubscriptionWorkflowState' });
