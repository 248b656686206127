/**
 * The checkout link form's values and the CheckoutLinkCreate/CheckoutLinkUpdate body they make,
 * checked first with the API's own schemas.
 */
import {
  checkoutLinkCreateInput,
  checkoutLinkUpdateInput,
} from '../../../../commerce/checkout-links/schemas.ts';
import { textOrNull } from '../catalog/inputs';
import type { CheckoutLink } from './api';

export interface CheckoutLinkFormValues {
  products: string[];
  label: string;
  success_url: string;
  /** '' for none. */
  discount_id: string;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
}

export const initialValues = (link?: CheckoutLink): CheckoutLinkFormValues => ({
  products: link?.products.map((product) => product.id) ?? [],
  label: link?.label ?? '',
  success_url: link?.success_url ?? '',
  discount_id: link?.discount_id ?? '',
  allow_discount_codes: link?.allow_discount_codes ?? true,
  require_billing_address: link?.require_billing_address ?? false,
});

export const checkoutLinkBody = (values: CheckoutLinkFormValues, creating: boolean) => ({
  ...(creating && { payment_processor: 'stripe' }),
  products: values.products,
  label: textOrNull(values.label),
  success_url: textOrNull(values.success_url),
  discount_id: values.discount_id || null,
  allow_discount_codes: values.allow_discount_codes,
  require_billing_address: values.require_billing_address,
});

/** The API's own schema, run on the body the values make. */
export const checkoutLinkFormSchema = (creating: boolean) => ({
  safeParse: (values: unknown) =>
    (creating ? checkoutLinkCreateInput : checkoutLinkUpdateInput).safeParse(
      checkoutLinkBody(values as CheckoutLinkFormValues, creating),
    ),
});
