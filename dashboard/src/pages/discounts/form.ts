/**
 * The discount form's values and the DiscountCreate/DiscountUpdate body they make. Field keys
 * are the API's, so its refusals, and its own zod schemas run here first, land at the inputs.
 * The percentage is typed as a percent (`12.5`) and sent as basis points; the fixed amount is
 * typed in dollars and sent in cents.
 */
import {
  discountCreateInput,
  discountUpdateInput,
} from '../../../../commerce/discounts/schemas.ts';
import { moneyInputText, parseMoneyInput } from '../../checkout/money';
import { instantOf, localTextOf, numberOrNull, numberText, textOrNull } from '../catalog/inputs';
import type { Discount } from './api';

export interface DiscountFormValues {
  name: string;
  type: 'percentage' | 'fixed';
  /** Percent off, as typed. */
  basis_points: string;
  /** Dollars off, as typed. */
  amount: string;
  duration: 'once' | 'forever' | 'repeating';
  duration_in_months: string;
  code: string;
  max_redemptions: string;
  /** `datetime-local` values, in the viewer's zone. */
  starts_at: string;
  ends_at: string;
  products: string[];
}

export function initialValues(discount?: Discount): DiscountFormValues {
  return {
    name: discount?.name ?? '',
    type: discount?.type ?? 'percentage',
    basis_points: discount?.type === 'percentage' ? String(discount.basis_points / 100) : '',
    amount: discount?.type === 'fixed' ? moneyInputText(discount.amount) : '',
    duration: discount?.duration ?? 'once',
    duration_in_months:
      discount?.duration === 'repeating' ? String(discount.duration_in_months) : '',
    code: discount?.code ?? '',
    max_redemptions: numberText(discount?.max_redemptions),
    starts_at: localTextOf(discount?.starts_at),
    ends_at: localTextOf(discount?.ends_at),
    products: discount?.products.map((product) => product.id) ?? [],
  };
}

function reductionBody(values: DiscountFormValues) {
  if (values.type === 'fixed') {
    const text = values.amount.trim();
    // Text that is no amount becomes NaN: the schema refuses it at `amount`.
    const cents = text ? (parseMoneyInput(text) ?? Number.NaN) : undefined;
    return { type: 'fixed' as const, amount: cents, currency: 'usd' };
  }
  const percent = numberOrNull(values.basis_points);
  return {
    type: 'percentage' as const,
    basis_points: percent === null ? undefined : Math.round(percent * 100),
  };
}

export function discountBody(values: DiscountFormValues) {
  return {
    name: values.name,
    ...reductionBody(values),
    duration: values.duration,
    duration_in_months:
      values.duration === 'repeating' ? numberOrNull(values.duration_in_months) : null,
    code: textOrNull(values.code),
    max_redemptions: numberOrNull(values.max_redemptions),
    starts_at: instantOf(values.starts_at),
    ends_at: instantOf(values.ends_at),
    products: values.products,
  };
}

/** The API's own schema, run on the body the values make. */
export const discountFormSchema = (creating: boolean) => ({
  safeParse: (values: unknown) =>
    (creating ? discountCreateInput : discountUpdateInput).safeParse(
      discountBody(values as DiscountFormValues),
    ),
});
