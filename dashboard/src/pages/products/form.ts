/**
 * The product form's values and how they become a ProductCreate or ProductUpdate body. Field
 * keys are the API's (`prices.0.price_amount`), so the API's refusals and the same checks run
 * here first (its zod schemas and domain/prices.ts rules) land next to the same inputs.
 */
import { productCreateInput, productUpdateInput } from '../../../../commerce/products/schemas.ts';
import { priceAmountLimits, priceListViolations } from '../../../../domain/prices.ts';
import type { TaxBehavior } from '../../../../domain/tax.ts';
import { formatMoney, moneyInputText, parseMoneyInput } from '../../checkout/money';
import type { Benefit, Price, Product, ProductMedia } from './api';

export const newAmountTypes = [
  { value: 'fixed', label: 'Fixed price' },
  { value: 'custom', label: 'Pay what you want' },
  { value: 'free', label: 'Free' },
  { value: 'metered_unit', label: 'Metered, per unit' },
] as const;
export type NewAmountType = (typeof newAmountTypes)[number]['value'];

/** A price about to be created; amounts as typed, in major units (`12.50`). */
export interface NewPriceDraft {
  kind: 'new';
  amount_type: NewAmountType;
  price_amount: string;
  minimum_amount: string;
  maximum_amount: string;
  preset_amount: string;
  meter_id: string;
  /** Cents per unit, a decimal (`0.5`). */
  unit_amount: string;
  cap_amount: string;
  /** The existing price this one takes the place of (archived on save). */
  replaces?: Price;
}

/** The inputs of a new price typed as text. */
export type PriceTextField = Exclude<keyof NewPriceDraft, 'kind' | 'amount_type' | 'replaces'>;

/** A price that exists: kept as it is, since prices never change once created. */
export interface KeptPriceDraft {
  kind: 'kept';
  price: Price;
}

export type PriceDraft = NewPriceDraft | KeptPriceDraft;

export interface ProductFormValues {
  name: string;
  description: string;
  /** '' for a one-time product. */
  recurring_interval: string;
  trial_interval: string;
  trial_interval_count: string;
  prices: PriceDraft[];
  medias: ProductMedia[];
  attached_custom_fields: { custom_field_id: string; required: boolean }[];
  tax_behavior: TaxBehavior;
  /** Not in the product's body: set after saving it (`POST /v1/products/{id}/benefits`). */
  benefits: Benefit[];
}

export const emptyPrice = (amountType: NewAmountType = 'fixed'): NewPriceDraft => ({
  kind: 'new',
  amount_type: amountType,
  price_amount: '',
  minimum_amount: '',
  maximum_amount: '',
  preset_amount: '',
  meter_id: '',
  unit_amount: '',
  cap_amount: '',
});

const amountText = (cents: number | null | undefined) =>
  cents == null ? '' : moneyInputText(cents);

/** A new price with an existing one's amounts: "changing" a price replaces it. */
export function priceCopy(price: Price): NewPriceDraft {
  const draft = {
    ...emptyPrice(price.amount_type === 'seat_based' ? 'fixed' : price.amount_type),
    replaces: price,
  };
  switch (price.amount_type) {
    case 'fixed':
      return { ...draft, price_amount: amountText(price.price_amount) };
    case 'custom':
      return {
        ...draft,
        minimum_amount: amountText(price.minimum_amount),
        maximum_amount: amountText(price.maximum_amount),
        preset_amount: amountText(price.preset_amount),
      };
    case 'metered_unit':
      return {
        ...draft,
        meter_id: price.meter_id,
        unit_amount: price.unit_amount,
        cap_amount: amountText(price.cap_amount),
      };
    case 'seat_based':
      return { ...draft, price_amount: amountText(price.price_per_seat) };
    default:
      return draft;
  }
}

export function initialValues(product?: Product): ProductFormValues {
  if (!product) {
    return {
      name: '',
      description: '',
      recurring_interval: 'month',
      trial_interval: '',
      trial_interval_count: '',
      prices: [emptyPrice()],
      medias: [],
      attached_custom_fields: [],
      tax_behavior: 'taxable',
      benefits: [],
    };
  }
  return {
    name: product.name,
    description: product.description ?? '',
    recurring_interval: product.recurring_interval ?? '',
    trial_interval: product.trial_interval ?? '',
    trial_interval_count: product.trial_interval_count?.toString() ?? '',
    prices: product.prices.map((price) => ({ kind: 'kept', price })),
    medias: product.medias,
    attached_custom_fields: product.attached_custom_fields.map(({ custom_field_id, required }) => ({
      custom_field_id,
      required,
    })),
    tax_behavior: product.tax_behavior,
    benefits: product.benefits,
  };
}

/** The benefit ids to set on the saved product; null when the product keeps the ones it has. */
export function changedBenefitIds(values: ProductFormValues, product?: Product): string[] | null {
  const ids = values.benefits.map((benefit) => benefit.id);
  const before = product?.benefits.map((benefit) => benefit.id) ?? [];
  return ids.join() === before.join() ? null : ids;
}

const { minimum, maximum, customMaximum, capMaximum } = priceAmountLimits;

interface Issue {
  path: (string | number)[];
  message: string;
}

/** Reads the typed amounts; text that is no amount becomes an issue at its field. */
function priceBody(draft: PriceDraft, index: number, issues: Issue[]) {
  if (draft.kind === 'kept') return { id: draft.price.id };
  // The API's limits, said in dollars as they were typed (its own messages count cents).
  const cents = (
    field: PriceTextField,
    {
      required = false,
      min = minimum,
      max = maximum,
    }: { required?: boolean; min?: number; max?: number } = {},
  ) => {
    const text = draft[field].trim();
    if (!text && !required) return null;
    const amount = parseMoneyInput(text);
    const problem =
      amount === null
        ? 'Enter an amount such as 12.50.'
        : amount < min
          ? `Enter at least ${formatMoney(min, 'usd')}.`
          : amount > max
            ? `Enter at most ${formatMoney(max, 'usd')}.`
            : null;
    if (problem) issues.push({ path: ['prices', index, field], message: problem });
    return amount;
  };
  switch (draft.amount_type) {
    case 'fixed':
      return { amount_type: 'fixed', price_amount: cents('price_amount', { required: true }) };
    case 'custom':
      return {
        amount_type: 'custom',
        minimum_amount: cents('minimum_amount'),
        maximum_amount: cents('maximum_amount', { max: customMaximum }),
        preset_amount: cents('preset_amount', { max: customMaximum }),
      };
    case 'free':
      return { amount_type: 'free' };
    case 'metered_unit':
      return {
        amount_type: 'metered_unit',
        meter_id: draft.meter_id,
        unit_amount: draft.unit_amount.trim(),
        cap_amount: cents('cap_amount', { min: 0, max: capMaximum }),
      };
  }
}

/** The request body for the values, and the issues found reading what was typed. */
export function productBody(values: ProductFormValues, creating: boolean) {
  const issues: Issue[] = [];
  const recurring = values.recurring_interval !== '';
  const count = values.trial_interval_count.trim();
  const body = {
    name: values.name,
    description: values.description,
    ...(creating && { recurring_interval: values.recurring_interval || null }),
    ...(recurring && {
      trial_interval: values.trial_interval || null,
      trial_interval_count: count ? Number(count) : null,
    }),
    prices: values.prices.map((draft, index) => priceBody(draft, index, issues)),
    medias: values.medias.map((media) => media.id),
    attached_custom_fields: values.attached_custom_fields,
    tax_behavior: values.tax_behavior,
  };
  const violations = priceListViolations(
    values.prices.map((draft) =>
      draft.kind === 'kept'
        ? { amountType: draft.price.amount_type, isNew: false }
        : { amountType: draft.amount_type, meterId: draft.meter_id || null, isNew: true },
    ),
    { recurring },
  );
  for (const violation of violations) {
    const path: (string | number)[] = ['prices'];
    if (violation.index !== null) path.push(violation.index);
    if (violation.field) path.push(violation.field);
    issues.push({ path, message: violation.message });
  }
  return { body, issues };
}

/** The API's own schema run on the body the values make, for `useApiForm`. */
export const productFormSchema = (creating: boolean) => ({
  safeParse(values: unknown) {
    const { body, issues } = productBody(values as ProductFormValues, creating);
    const checked = (creating ? productCreateInput : productUpdateInput).safeParse(body);
    const all = [...issues, ...(checked.error?.issues ?? [])].map((issue) => ({
      path: issue.path as PropertyKey[],
      message: issue.message,
    }));
    return all.length ? { success: false, error: { issues: all } } : { success: true };
  },
});
