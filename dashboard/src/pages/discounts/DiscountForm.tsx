import { useQueryClient } from '@tanstack/react-query';
import { discountLimits } from '../../../../domain/discounts.ts';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { errorUnder } from '../catalog/inputs';
import { ProductsField } from '../catalog/ProductsField';
import { type Discount, discountsApi, discountsKey } from './api';
import { type DiscountFormValues, discountBody, discountFormSchema, initialValues } from './form';

const typeOptions = [
  { value: 'percentage', label: 'Percentage' },
  { value: 'fixed', label: 'Fixed amount (USD)' },
];
const durationOptions = [
  { value: 'once', label: 'Once (the first payment)' },
  { value: 'forever', label: 'Forever (every payment)' },
  { value: 'repeating', label: 'Repeating (for some months)' },
];

/** Creates a discount, or edits `discount`. */
export function DiscountForm({ discount }: { discount?: Discount }) {
  const queryClient = useQueryClient();
  const form = useApiForm<DiscountFormValues, Discount>(
    initialValues(discount),
    (values) =>
      discount
        ? discountsApi.update(discount.id, discountBody(values))
        : discountsApi.create(discountBody(values)),
    {
      schema: discountFormSchema(!discount),
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: discountsKey });
        navigate('/discounts');
      },
    },
  );
  const { values } = form;
  return (
    <Form
      form={form}
      submitLabel={discount ? 'Save changes' : 'Create discount'}
      actions={
        <Link to="/discounts" className="button">
          Cancel
        </Link>
      }
    >
      <TextField form={form} name="name" label="Name" required hint="Shown to buyers." />
      <SelectField form={form} name="type" label="Type" options={typeOptions} required />
      {values.type === 'percentage' ? (
        <TextField
          form={form}
          name="basis_points"
          label="Percent off"
          inputMode="decimal"
          required
          hint="From 0.01 to 100."
        />
      ) : (
        <TextField
          form={form}
          name="amount"
          label="Amount off (USD)"
          inputMode="decimal"
          required
          placeholder="5.00"
        />
      )}
      <SelectField
        form={form}
        name="duration"
        label="Duration"
        options={durationOptions}
        required
      />
      {values.duration === 'repeating' && (
        <TextField
          form={form}
          name="duration_in_months"
          label="Months"
          type="number"
          min={1}
          max={discountLimits.maxDurationInMonths}
          required
        />
      )}
      <TextField
        form={form}
        name="code"
        label="Code"
        hint={`Letters and digits, ${discountLimits.codeLength.min} to ${discountLimits.codeLength.max} characters. Without a code, the discount is applied through links and the API only.`}
      />
      <TextField
        form={form}
        name="max_redemptions"
        label="Maximum redemptions"
        type="number"
        min={1}
        hint="Empty for no limit."
      />
      <TextField form={form} name="starts_at" label="Starts at" type="datetime-local" />
      <TextField form={form} name="ends_at" label="Ends at" type="datetime-local" />
      <ProductsField
        legend="Products"
        hint="None checked: the discount applies to every product."
        selected={values.products}
        error={errorUnder(form.fieldErrors, 'products')}
        onChange={(products) => form.setValue('products', products)}
      />
    </Form>
  );
}
