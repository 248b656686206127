import { useQueryClient } from '@tanstack/react-query';
import { recurringIntervals } from '../../../../domain/prices.ts';
import { Field, Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { type Product, productsApi, productsKey } from './api';
import { CustomFieldsField } from './CustomFieldsField';
import { initialValues, productBody, productFormSchema } from './form';
import { MediaField } from './MediaField';
import { PricesField } from './PricesField';
import { billingLabel } from './prices';
import './products.css';

const billingOptions = [
  { value: '', label: 'One-time purchase' },
  ...recurringIntervals.map((interval) => ({ value: interval, label: billingLabel(interval) })),
];
const trialOptions = [
  { value: '', label: 'No trial' },
  ...recurringIntervals.map((interval) => ({ value: interval, label: `${interval}s` })),
];

/** Creates a product, or edits `product`: its prices are kept, removed or replaced, never changed. */
export function ProductForm({ product }: { product?: Product }) {
  const creating = !product;
  const queryClient = useQueryClient();
  const form = useApiForm(
    initialValues(product),
    (values) => {
      const { body } = productBody(values, creating);
      return product ? productsApi.update(product.id, body) : productsApi.create(body);
    },
    {
      schema: productFormSchema(creating),
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: productsKey });
        navigate(`/products/${saved.id}`);
      },
    },
  );
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
    </Form>
  );
}
