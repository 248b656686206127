import type { Dispatch, SetStateAction } from 'react';
import type { AddressField, CheckoutPublic, CheckoutUpdate, CustomFieldValue } from './api';
import type { FieldErrors } from './fields';
import { moneyInputText } from './money';
import { testPaymentMethods } from './payment';

/** What the buyer entered, as the form holds it (amounts as typed text). */
export interface FormValues {
  email: string;
  name: string;
  isBusiness: boolean;
  billingName: string;
  taxId: string;
  address: Record<AddressField, string>;
  discountCode: string;
  amountText: string;
  customFields: Record<string, CustomFieldValue>;
  paymentMethod: string;
}

/** The form as the checkout the server holds fills it. */
export function initialValues(checkout: CheckoutPublic): FormValues {
  const address = checkout.customer_billing_address;
  const price = checkout.product_price;
  return {
    email: checkout.customer_email ?? '',
    name: checkout.customer_name ?? '',
    isBusiness: checkout.is_business_customer,
    billingName: checkout.customer_billing_name ?? '',
    taxId: checkout.customer_tax_id ?? '',
    address: {
      country: address?.country ?? '',
      line1: address?.line1 ?? '',
      line2: address?.line2 ?? '',
      postal_code: address?.postal_code ?? '',
      city: address?.city ?? '',
      state: address?.state?.replace(/^[A-Z]{2}-/, '') ?? '',
    },
    discountCode: checkout.discount?.code ?? '',
    amountText: price.amount_type === 'custom' ? moneyInputText(checkout.amount) : '',
    customFields: { ...checkout.custom_field_data },
    paymentMethod: testPaymentMethods[0].id,
  };
}

/** Editing; saving a change the server prices; confirming; or waiting for the payment. */
export type Phase = 'editing' | 'saving' | 'confirming' | 'processing';

export const expiredMessage = 'This checkout has expired.';
export const amountMissing = 'Enter an amount, e.g. 12.50.';

/** What the form's parts read and change, once the checkout is loaded. */
export interface CheckoutForm {
  checkout: CheckoutPublic;
  values: FormValues;
  errors: FieldErrors;
  /** A change or the confirmation is under way: controls that would send one are disabled. */
  busy: boolean;
  set: (change: Partial<FormValues>) => void;
  setValues: Dispatch<SetStateAction<FormValues | null>>;
  setErrors: Dispatch<SetStateAction<FieldErrors>>;
  /** Sends a change the server must price; once taken, the errors of `clears` go. */
  save: (update: CheckoutUpdate, clears: string[]) => Promise<CheckoutPublic | null>;
}
