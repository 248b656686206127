import { addressFields, addressModes } from './address';
import type { AddressField } from './api';
import { countries } from './countries';
import { Field } from './fields';
import type { CheckoutForm } from './form';

const countryOptions = countries.map((country) => (
  <option key={country.code} value={country.code}>
    {country.name}
  </option>
));

/** The billing address fields the chosen country asks for (none when the seller asks none). */
export function BillingAddress({ form }: { form: CheckoutForm }) {
  const { checkout, values, errors } = form;
  const modes = addressModes(checkout, values.address.country);
  if (modes.country === 'disabled') return null;
  const setAddress = (key: AddressField, value: string) =>
    form.setValues(
      (current) => current && { ...current, address: { ...current.address, [key]: value } },
    );
  return (
    <fieldset>
      <legend>Billing address</legend>
      <Field
        name="customer_billing_address.country"
        label="Country"
        required
        error={errors['customer_billing_address.country'] ?? errors.customer_billing_address}
      >
        {(props) => (
          <select
            {...props}
            autoComplete="country"
            value={values.address.country}
            onChange={(event) => setAddress('country', event.target.value)}
          >
            <option value="">Choose a country</option>
            {countryOptions}
          </select>
        )}
      </Field>
      {addressFields
        .filter(({ key }) => modes[key] !== 'disabled')
        .map(({ key, label, autoComplete }) => (
          <Field
            key={key}
            name={`customer_billing_address.${key}`}
            label={label}
            required={modes[key] === 'required'}
            error={errors[`customer_billing_address.${key}`]}
          >
            {(props) => (
              <input
                {...props}
                autoComplete={autoComplete}
                value={values.address[key]}
                onChange={(event) => setAddress(key, event.target.value)}
              />
            )}
          </Field>
        ))}
    </fieldset>
  );
}
