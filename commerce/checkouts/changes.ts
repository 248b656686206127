import type { ValidationIssue } from '../../core/errors.ts';
import type { Checkout } from '../../db/entities/index.ts';
import {
  type AttachedCustomFieldRule,
  type CustomFieldRule,
  checkCustomFieldData,
} from '../../domain/custom-field-values.ts';
import { validateTaxId } from '../../domain/tax-ids.ts';
import type { ProductWire } from '../products/service.ts';
import type { CheckoutUpdateInput, CheckoutUpdatePublicInput } from './schemas.ts';

/** Every change a request may make; absent keys keep their value. */
export type CheckoutChanges = Partial<
  CheckoutUpdateInput & Pick<CheckoutUpdatePublicInput, 'discount_code'>
>;

/** A refused value, located at its field as /v1's 422 answers it. */
export const issue = (
  loc: (string | number)[],
  msg: string,
  type = 'value_error',
): ValidationIssue => ({ loc, msg, type });

/**
 * The buyer's name, email, billing details and metadata. A tax id is read in the billing
 * country; one the country no longer recognises is dropped.
 */
export function applyBuyerFields(checkout: Checkout, changes: CheckoutChanges): ValidationIssue[] {
  if (changes.customer_name !== undefined) checkout.customerName = changes.customer_name;
  if (changes.customer_email !== undefined) checkout.customerEmail = changes.customer_email;
  if (changes.customer_billing_name !== undefined) {
    checkout.customerBillingName = changes.customer_billing_name;
  }
  if (changes.customer_billing_address !== undefined) {
    checkout.customerBillingAddress = changes.customer_billing_address;
  }
  if (changes.is_business_customer != null) {
    checkout.isBusinessCustomer = changes.is_business_customer;
  }
  if (changes.customer_ip_address !== undefined) {
    checkout.customerIpAddress = changes.customer_ip_address;
  }
  if (changes.customer_metadata != null) checkout.customerMetadata = changes.customer_metadata;
  const issues: ValidationIssue[] = [];
  const taxIdValue =
    changes.customer_tax_id === undefined ? checkout.customerTaxId?.[0] : changes.customer_tax_id;
  const country = checkout.customerBillingAddress?.country;
  const taxId = taxIdValue && country ? validateTaxId(taxIdValue, country) : null;
  if (changes.customer_tax_id && !country) {
    issues.push(
      issue(
        ['body', 'customer_billing_address'],
        'Country is required to validate tax ID.',
        'missing',
      ),
    );
  } else if (changes.customer_tax_id && !taxId) {
    issues.push(issue(['body', 'customer_tax_id'], 'Invalid tax ID.'));
  }
  checkout.customerTaxId = taxId;
  return issues;
}

/** The seller's settings: discount codes, address, redirect, metadata and the trial. */
export function applySellerSettings(
  checkout: Checkout,
  changes: CheckoutChanges,
  product: ProductWire,
): ValidationIssue[] {
  if (changes.allow_discount_codes != null) {
    checkout.allowDiscountCodes = changes.allow_discount_codes;
  }
  if (changes.require_billing_address != null) {
    checkout.requireBillingAddress = changes.require_billing_address;
  }
  if (changes.success_url !== undefined) checkout.successUrl = changes.success_url;
  if (changes.embed_origin !== undefined) checkout.embedOrigin = changes.embed_origin;
  if (changes.metadata) checkout.metadata = changes.metadata;
  if (changes.trial_interval !== undefined) checkout.trialInterval = changes.trial_interval;
  if (changes.trial_interval_count !== undefined) {
    checkout.trialIntervalCount = changes.trial_interval_count;
  }
  if ((checkout.trialInterval == null) !== (checkout.trialIntervalCount == null)) {
    const missing = checkout.trialInterval == null ? 'trial_interval' : 'trial_interval_count';
    return [issue(['body', missing], 'Field required with a trial.', 'missing')];
  }
  if (checkout.trialInterval && !product.is_recurring) {
    return [issue(['body', 'trial_interval'], 'A trial needs a recurring product.')];
  }
  return [];
}

/** The custom fields a product asks for, as the value rules read them. */
export function attachedFieldRules(product: ProductWire): AttachedCustomFieldRule[] {
  return product.attached_custom_fields.map((attached) => ({
    field: attached.custom_field as unknown as CustomFieldRule,
    required: attached.required,
  }));
}

/** Values of the product's custom fields: checked now, required ones only at confirm. */
export function applyCustomFieldValues(
  checkout: Checkout,
  changes: CheckoutChanges,
  product: ProductWire,
): ValidationIssue[] {
  if (changes.custom_field_data == null) return [];
  const attached = attachedFieldRules(product).map((rule) => ({ ...rule, required: false }));
  const checked = checkCustomFieldData(attached, changes.custom_field_data);
  checkout.customFieldData = checked.data;
  return checked.issues.map((refused) =>
    issue(['body', 'custom_field_data', refused.slug], refused.message),
  );
}
