/**
 * What a subscription's renewal order bills, and what its metered prices would bill so far.
 *
 * A renewal bills its static price for the next period in advance, the usage of its metered
 * prices for the closed period in arrears, and the prorations a product change left
 * (`pendingItems`). Amounts are integer minor units; metered amounts are computed from exact
 * decimals (units and unit amounts are decimal text).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Checkout,
  type Discount,
  type Meter,
  type ProductPrice,
  type Subscription,
  SubscriptionPrice,
} from '../../db/entities/index.ts';
import { joinSql, type SqlFragment, sql } from '../../db/sql.ts';
import { priceAmountOf } from '../../domain/checkout-amounts.ts';
import {
  type DiscountReduction,
  type DiscountTerm,
  discountAmount,
  discountAppliesToPeriod,
  divideRoundingHalfAway,
} from '../../domain/discounts.ts';
import { formatMoney } from '../../domain/money.ts';
import { planLabel } from '../../domain/prices.ts';
import { shareTax, type TaxLine, type TaxResult } from '../../domain/tax.ts';
import { billMeterUsage, meterUsageSql } from '../meters/billing.ts';

/** A line of a renewal order; `proration` marks amounts left by a product change. */
export interface RenewalBillItem {
  label: string;
  amount: number;
  taxAmount: number;
  productPriceId: string | null;
  proration: boolean;
  /** The seats a seat-based price's line bills; null for other lines. */
  seats: number | null;
}

/**
 * What a renewal order bills: Σ items = subtotal, net = subtotal − discount, total = net + the
 * exclusive tax (an inclusive tax is inside the net; `taxLines` say which). `creditToBalance` is what a negative subtotal leaves the customer (minor units, ≥ 0): the
 * caller adds it to the customer's balance with the order.
 */
export interface RenewalBill {
  items: RenewalBillItem[];
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  taxLines: TaxLine[];
  totalAmount: number;
  creditToBalance: number;
}

export interface BilledPeriod {
  start: Date;
  end: Date;
}

/**
 * The renewal order of a subscription whose period `closedPeriod` ended and `nextPeriod` starts:
 *
 * - its static price for the next period (a pay-what-you-want price renews what the buyer chose
 *   at checkout, a seat-based price the subscription's seats, which its line names);
 * - each metered price's usage of the closed period, recorded as billed (`billMeterUsage`: a
 *   second call answers the same units), less the units meter credits gave in that period;
 * - its pending prorations;
 * - its discount, on the whole subtotal, while the discount still applies to the next period
 *   (counted from the first billed period: the trial's end, else the start);
 * - no tax yet: `taxedBill` adds the tax of the net amount (docs/tax.md).
 *
 * A negative subtotal bills nothing: a line brings it to zero and the credit goes to the
 * customer's balance, which later orders use.
 */
export async function renewalBill(
  tx: EntityManager,
  subscription: Subscription,
  closedPeriod: BilledPeriod,
  nextPeriod: BilledPeriod,
): Promise<RenewalBill> {
  await tx.populate(subscription, ['product', 'discount']);
  const links = await tx.find(
    SubscriptionPrice,
    { subscription: subscription.id },
    { populate: ['productPrice.meter'], orderBy: [{ id: 'asc' }] },
  );
  const items: RenewalBillItem[] = [];
  for (const { productPrice: price } of links) {
    if (price.amountType === 'metered_unit') continue;
    items.push({
      label: planLabel(subscription.product.name, subscription.seats ?? null),
      amount: await renewedAmountOf(tx, subscription, price),
      taxAmount: 0,
      productPriceId: price.id,
      proration: false,
      seats: price.amountType === 'seat_based' ? (subscription.seats ?? null) : null,
    });
  }
  for (const { productPrice: price } of links) {
    if (!price.meter) continue;
    const units = await billMeterUsage(tx, {
      meterId: price.meter.id,
      customerId: subscription.customer.id,
      periodStart: closedPeriod.start,
      periodEnd: closedPeriod.end,
      subscriptionId: subscription.id,
    });
    if (isZero(units)) continue;
    const credits = creditsSql(subscription, price.meter, closedPeriod);
    const [row] = await tx.execute<{ credits: number[] }[]>(
      `select (${credits.sql}) as credits`,
      credits.params,
    );
    const charge = meteredCharge(price, units, nonNegativeRunningSum(row?.credits ?? []));
    items.push({
      label: charge.label,
      amount: charge.amount,
      taxAmount: 0,
      productPriceId: price.id,
      proration: false,
      seats: null,
    });
  }
  for (const pending of subscription.pendingItems) {
    items.push({ ...pending, taxAmount: 0, proration: true, seats: null });
  }

  const owed = items.reduce((sum, item) => sum + item.amount, 0);
  if (owed < 0) {
    items.push({
      label: 'Credit added to the customer balance',
      amount: -owed,
      taxAmount: 0,
      productPriceId: null,
      proration: true,
      seats: null,
    });
  }
  const subtotalAmount = Math.max(owed, 0);
  const discount = subscription.discount;
  const discounted =
    discount &&
    discountAppliesToPeriod(termOf(discount), {
      appliedAt: subscription.trialEnd ?? subscription.startedAt ?? subscription.billingAnchor,
      periodStart: nextPeriod.start,
    });
  const off = discounted ? discountAmount(reductionOf(discount), subtotalAmount) : 0;
  const netAmount = subtotalAmount - off;
  return {
    items,
    subtotalAmount,
    discountAmount: off,
    netAmount,
    taxAmount: 0,
    taxLines: [],
    totalAmount: netAmount,
    creditToBalance: Math.max(-owed, 0),
  };
}

/**
 * The bill with the tax of its net amount (docs/tax.md, "Renewals and plan changes"): its tax
 * lines, tax and total, and each item's share of the tax (`shareTax`: pro rata to the items'
 * amounts, a proration credit's share negative).
 */
export function taxedBill(bill: RenewalBill, tax: TaxResult): RenewalBill {
  const shares = shareTax(
    bill.items.map((item) => item.amount),
    tax.taxAmount,
  );
  return {
    ...bill,
    items: bill.items.map((item, index) => ({ ...item, taxAmount: shares[index] ?? 0 })),
    taxAmount: tax.taxAmount,
    taxLines: tax.lines,
    totalAmount: tax.totalAmount,
  };
}

/**
 * What a static price bills per period: a seat-based price the subscription's seats, a
 * pay-what-you-want price what the buyer chose at checkout (when it was this price), the others
 * their amount.
 */
async function renewedAmountOf(tx: EntityManager, subscription: Subscription, price: ProductPrice) {
  if (price.amountType === 'seat_based') return priceAmountOf(price, { seats: subscription.seats });
  const checkout =
    price.amountType === 'custom' && subscription.checkoutId
      ? await tx.findOne(Checkout, { id: subscription.checkoutId, productPrice: price.id })
      : null;
  return priceAmountOf(price, { amount: checkout?.amount });
}

/** What a discount's terms are made of (an entity, or a row read alongside a subscription). */
export type DiscountTerms = Pick<
  Discount,
  'type' | 'amount' | 'basisPoints' | 'duration' | 'durationInMonths'
>;

/** What a discount takes off, as the discount rules read it. */
export function reductionOf(discount: DiscountTerms): DiscountReduction {
  return discount.type === 'fixed'
    ? { type: 'fixed', amount: discount.amount ?? 0 }
    : { type: 'percentage', basisPoints: discount.basisPoints ?? 0 };
}

/** How long a discount keeps applying, as the discount rules read it. */
export function termOf(discount: DiscountTerms): DiscountTerm {
  return discount.duration === 'repeating'
    ? { duration: 'repeating', durationInMonths: discount.durationInMonths ?? 1 }
    : { duration: discount.duration };
}

/**
 * The units `meter.credited` events gave the customer on the meter during the period, in order
 * (a JSON array): Polar subtracts their running sum from the period's usage.
 */
function creditsSql(subscription: Subscription, meter: Meter, period: BilledPeriod): SqlFragment {
  return sql`select coalesce(json_agg((c.metadata->>'units')::int order by c."timestamp", c.id), '[]'::json)
    from events c
    where c.customer_id = ${subscription.customer.id} and c."timestamp" >= ${period.start}
      and c."timestamp" < ${period.end} and c.organization_id = ${meter.organization.id}
      and c.source = 'system' and c.name = 'meter.credited'
      and c.metadata->>'meter_id' = ${meter.id}`;
}

/** A running sum that never goes below zero (a withdrawal cannot take more than was given). */
function nonNegativeRunningSum(values: number[]): number {
  return values.reduce((sum, value) => Math.max(sum + value, 0), 0);
}

/** An exact decimal: `coefficient × 10^-scale`. */
interface ExactDecimal {
  coefficient: bigint;
  scale: number;
}

/** Decimal text as PostgreSQL's numeric writes it (no exponent), exactly. */
function parseDecimal(text: string): ExactDecimal {
  const [whole = '0', fraction = ''] = text.split('.');
  return { coefficient: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

function decimalText({ coefficient, scale }: ExactDecimal): string {
  const sign = coefficient < 0n ? '-' : '';
  const digits = (coefficient < 0n ? -coefficient : coefficient)
    .toString()
    .padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

const isZero = (units: string) => parseDecimal(units).coefficient === 0n;

/** A metered price's unit amount (minor units, possibly a fraction of one) as money. */
function formatUnitAmount(unitAmount: string, currency: string): string {
  const { coefficient, scale } = parseDecimal(unitAmount);
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
    maximumFractionDigits: scale + 2,
  }).format(decimalText({ coefficient, scale: scale + 2 }) as Intl.StringNumericLiteral);
}

export interface MeteredCharge {
  amount: number;
  label: string;
}

/**
 * What a metered price bills for `units` used with `creditedUnits` credited, as Polar computes
 * it: the units beyond the credits (never fewer than none) times the unit amount, rounded half
 * up to a minor unit, at most the price's cap.
 */
export function meteredCharge(
  price: Pick<ProductPrice, 'unitAmount' | 'capAmount' | 'priceCurrency'> & {
    meter?: Pick<Meter, 'name'> | null;
  },
  units: string,
  creditedUnits: number,
): MeteredCharge {
  const used = parseDecimal(units);
  const beyondCredits = used.coefficient - BigInt(creditedUnits) * 10n ** BigInt(used.scale);
  const billable = { coefficient: beyondCredits > 0n ? beyondCredits : 0n, scale: used.scale };
  const unitAmount = parseDecimal(price.unitAmount ?? '0');
  const raw = divideRoundingHalfAway(
    billable.coefficient * unitAmount.coefficient,
    10n ** BigInt(billable.scale + unitAmount.scale),
  );
  const currency = price.priceCurrency ?? 'usd';
  const capped = price.capAmount != null && raw > BigInt(price.capAmount);
  const amount = capped ? (price.capAmount as number) : Number(raw);
  const label = `${price.meter?.name ?? 'Usage'} — (${decimalText(billable)} consumed units) × ${formatUnitAmount(price.unitAmount ?? '0', currency)}${
    capped ? ` — Capped at ${formatMoney(amount, currency)}` : ''
  }`;
  return { amount, label };
}

/** A metered price's usage in a subscription's current period: Polar's `SubscriptionMeter`. */
export interface CurrentMeterUsage {
  /** The subscription price it is the usage of. */
  subscriptionPriceId: string;
  consumedUnits: string;
  creditedUnits: number;
  amount: number;
}

/**
 * The usage so far of the metered prices `links` of `subscriptions` in their current periods,
 * and what it would bill: one statement for all of them (a list page's worth).
 */
export async function currentMeterUsage(
  em: EntityManager,
  subscriptions: Subscription[],
  links: SubscriptionPrice[],
): Promise<CurrentMeterUsage[]> {
  const subscriptionOf = new Map(subscriptions.map((s) => [s.id, s]));
  const now = new Date();
  const rows: { link: SubscriptionPrice; meter: Meter; subscription: Subscription }[] = [];
  for (const link of links) {
    const subscription = subscriptionOf.get(link.subscription.id);
    const meter = link.productPrice.meter;
    if (subscription && meter) rows.push({ link, meter, subscription });
  }
  if (rows.length === 0) return [];
  const statement = joinSql(
    rows.map(({ link, meter, subscription }) => {
      const period = {
        start: subscription.currentPeriodStart,
        end: subscription.currentPeriodEnd ?? now,
      };
      return sql`select ${link.id}::text as id,
        (${meterUsageSql(meter, subscription.customer.id, period.start, period.end)}) as units,
        (${creditsSql(subscription, meter, period)}) as credits`;
    }),
    ' union all ',
  );
  const usage = await em.execute<{ id: string; units: string; credits: number[] }[]>(
    statement.sql,
    statement.params,
  );
  const usageOf = new Map(usage.map((row) => [row.id, row]));
  return rows.map(({ link }) => {
    const { units = '0', credits = [] } = usageOf.get(link.id) ?? {};
    const creditedUnits = nonNegativeRunningSum(credits);
    return {
      subscriptionPriceId: link.id,
      consumedUnits: units,
      creditedUnits,
      amount: meteredCharge(link.productPrice, units, creditedUnits).amount,
    };
  });
}
