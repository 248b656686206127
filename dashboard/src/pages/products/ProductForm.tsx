import { useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { recurringIntervals } from '../../../../domain/prices.ts';
import { Field, Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { type Product, productsApi, productsKey } from './api';
import { BenefitsField } from './BenefitsField';
import { CustomFieldsField } from './CustomFieldsField';
import {
  changedBenefitIds,
  initialValues,
  type ProductFormValues,
  productBody,
  productFormSchema,
} from './form';
import { MediaField } from './MediaField';
import { PricesField } from './PricesField';
import { billingLabel } from './prices';
import './products.css';

const billingOptions = [
  { value: '', label: 'One-time purchase' },
  ...recurringIntervals.map((interval) => ({ value: interval, label: billingLabel(interval) })),
];
/** Exempt products are never taxed, whichever tax mode the organization uses (docs/tax.md). */
const taxOptions = [
  { value: 'taxable', label: 'Taxable' },
  { value: 'exempt', label: 'Tax exempt' },
];
const trialOptions = [
  { value: '', label: 'No trial' },
  ...recurringIntervals.map((interval) => ({ value: interval, label: `${interval}s` })),
];

/**
 * Creates a product, or edits `product`: its prices are kept, removed or replaced, never changed.
 * Its benefits are set once it is saved.
 */
export function ProductForm({ product }: { product?: Product }) {
  const creating = !product;
  const queryClient = useQueryClient();
  // The product once saved: when setting its benefits fails, trying again retries only that.
  const saved = useRef<Product | null>(null);
  const save = async (values: ProductFormValues) => {
    const { body } = productBody(values, creating);
    saved.current ??= await (product
      ? productsApi.update(product.id, body)
      : productsApi.create(body));
    const benefitIds = changedBenefitIds(values, product);
    if (!benefitIds) return saved.current;
    try {
      return await productsApi.setBenefits(saved.current.id, benefitIds);
    } catch (failure) {
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new Error(
        `${saved.current.name} is saved, but its benefits are not (${reason}). Save again to retry them.`,
      );
    }
  };
  const form = useApiForm(initialValues(product), save, {
    schema: productFormSchema(creating),
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: productsKey });
      navigate(`/products/${result.id}`);
    },
  });
  const { values, fieldErrors } = form;
  const recurring = values.recurring_interval !== '';

  return (
    <Form
      form={form}
      submitLabel={creating ? 'Create product' : 'Save changes'}
      actions={
        <Link to={product ? `/products/${product.id}` : '/products'} className="button">
          Cancel
        </Link>
      }
    >
      <TextField form={form} name="name" label="Name" required minLength={3} />
      <Field name="description" label="Description" error={fieldErrors.description}>
        {(props) => (
          <textarea
            {...props}
            rows={3}
            value={values.description}
            onChange={(event) => form.setValue('description', event.target.value)}
          />
        )}
      </Field>
      {creating ? (
        <SelectField
          form={form}
          name="recurring_interval"
          label="Billing"
          options={billingOptions}
          hint="Cannot be changed once the product exists."
          required
        />
      ) : (
        <p>
          <strong>Billing:</strong> {billingLabel(product.recurring_interval)}{' '}
          <span className="muted">(cannot be changed)</span>
        </p>
      )}
      {recurring && (
        <div className="price-editor-fields">
          <TextField
            form={form}
            name="trial_interval_count"
            label="Free trial length"
            inputMode="numeric"
            hint="How many trial units; empty for no trial."
          />
          <SelectField
            form={form}
            name="trial_interval"
            label="Trial unit"
            options={trialOptions}
          />
        </div>
      )}

      <SelectField
        form={form}
        name="tax_behavior"
        label="Tax behaviour"
        options={taxOptions}
        hint="Exempt products are sold without tax, whatever the organization's tax settings."
      />

      <PricesField
        prices={values.prices}
        recurring={recurring}
        errors={fieldErrors}
        onChange={(prices) => form.setValue('prices', prices)}
      />

      <MediaField
        medias={values.medias}
        error={Object.entries(fieldErrors).find(([key]) => key.startsWith('medias'))?.[1]}
        onChange={(medias) => form.setValue('medias', medias)}
      />
      <CustomFieldsField
        attached={values.attached_custom_fields}
        errors={fieldErrors}
        onChange={(attached) => form.setValue('attached_custom_fields', attached)}
      />
      <BenefitsField
        benefits={values.benefits}
        editing={!creating}
        onChange={(benefits) => form.setValue('benefits', benefits)}
      />
    </Form>
  );
}
