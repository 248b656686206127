import { Field } from './fields';
import type { CheckoutForm } from './form';

/** The buyer's email and name and, for a business, its name and tax ID. */
export function CustomerFields({ form }: { form: CheckoutForm }) {
  const { checkout, values } = form;
  return (
    <>
      <TextField
        form={form}
        value="email"
        label="Email"
        required
        type="email"
        autoComplete="email"
      />
      <TextField
        form={form}
        value="name"
        label="Name"
        required={checkout.is_payment_form_required}
        autoComplete="name"
      />

      <label className="choice">
        <input
          type="checkbox"
          checked={values.isBusiness}
          disabled={form.busy}
          onChange={async (event) => {
            const isBusiness = event.target.checked;
            form.set({ isBusiness });
            await form.save({ is_business_customer: isBusiness }, ['is_business_customer']);
          }}
        />
        <span>I’m purchasing as a business</span>
      </label>

      {values.isBusiness && (
        <>
          <TextField
            form={form}
            value="billingName"
            label="Business name"
            required
            autoComplete="organization"
          />
          <TextField form={form} value="taxId" label="Tax ID" />
        </>
      )}
    </>
  );
}

type TextValue = 'email' | 'name' | 'billingName' | 'taxId';

/** The API field each value fills, whose refusals show next to it. */
const apiFields: Record<TextValue, string> = {
  email: 'customer_email',
  name: 'customer_name',
  billingName: 'customer_billing_name',
  taxId: 'customer_tax_id',
};

interface TextFieldProps {
  form: CheckoutForm;
  value: TextValue;
  label: string;
  required?: boolean;
  type?: 'email';
  autoComplete?: string;
}

/** An input of one of the buyer's details, with its API field's error. */
function TextField({ form, value, label, required, type, autoComplete }: TextFieldProps) {
  const name = apiFields[value];
  return (
    <Field name={name} label={label} required={required} error={form.errors[name]}>
      {(props) => (
        <input
          {...props}
          type={type}
          autoComplete={autoComplete}
          value={form.values[value]}
          onChange={(event) => form.set({ [value]: event.target.value })}
        />
      )}
    </Field>
  );
}
