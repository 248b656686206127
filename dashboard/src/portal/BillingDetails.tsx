import { type FormEvent, useRef, useState } from 'react';
import { addressFields } from '../checkout/address';
import { type AddressField, CheckoutApiError } from '../checkout/api';
import { countries } from '../checkout/countries';
import { Field, type FieldErrors, fieldErrorsOf } from '../checkout/fields';
import type { PortalCustomer } from './api';
import { Loaded, usePortal, useProblem, useResource } from './resource';

type Values = Record<AddressField, string> & { billing_name: string; tax_id: string };

function valuesOf(customer: PortalCustomer): Values {
  const address = customer.billing_address;
  const taxId = Array.isArray(customer.tax_id) ? customer.tax_id[0] : customer.tax_id;
  return {
    billing_name: customer.billing_name ?? customer.name ?? '',
    country: address?.country ?? '',
    line1: address?.line1 ?? '',
    line2: address?.line2 ?? '',
    postal_code: address?.postal_code ?? '',
    city: address?.city ?? '',
    state: address?.state ?? '',
    tax_id: taxId ?? '',
  };
}

const blankToNull = (text: string) => text.trim() || null;

/** The name, address and tax id invoices carry. */
export function BillingDetails() {
  const customer = useResource((api) => api.customer());
  return (
    <section aria-labelledby="billing-title">
      <h2 id="billing-title">Billing details</h2>
      <p className="muted">Shown on your invoices.</p>
      <Loaded resource={customer} what="your billing details">
        {(loaded) => <BillingForm key={loaded.id} customer={loaded} />}
      </Loaded>
    </section>
  );
}

function BillingForm({ customer }: { customer: PortalCustomer }) {
  const { api } = usePortal();
  const describe = useProblem();
  const form = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState(() => valuesOf(customer));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof Values, value: string) => {
    setSaved(false);
    setValues((current) => ({ ...current, [key]: value }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setProblem(null);
    try {
      const updated = await api.updateCustomer({
        billing_name: blankToNull(values.billing_name),
        billing_address: values.country
          ? {
              country: values.country,
              line1: blankToNull(values.line1),
              line2: blankToNull(values.line2),
              postal_code: blankToNull(values.postal_code),
              city: blankToNull(values.city),
              state: blankToNull(values.state),
            }
          : null,
        tax_id: blankToNull(values.tax_id),
      });
      setValues(valuesOf(updated));
      setSaved(true);
    } catch (error) {
      if (error instanceof CheckoutApiError && error.issues.length > 0) {
        setErrors(fieldErrorsOf(error.issues));
        requestAnimationFrame(() =>
          form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(),
        );
      }
      setProblem(describe(error, 'Your billing details could not be saved.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form ref={form} className="portal-form" onSubmit={submit} noValidate>
      <Field name="billing_name" label="Billing name" error={errors.billing_name}>
        {(props) => (
          <input
            {...props}
            autoComplete="name"
            value={values.billing_name}
            onChange={(event) => set('billing_name', event.target.value)}
          />
        )}
      </Field>
      <Field
        name="billing_address.country"
        label="Country"
        error={errors['billing_address.country'] ?? errors.billing_address}
      >
        {(props) => (
          <select
            {...props}
            autoComplete="country"
            value={values.country}
            onChange={(event) => set('country', event.target.value)}
          >
            <option value="">Choose a country</option>
            {countries.map((country) => (
              <option key={country.code} value={country.code}>
                {country.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {addressFields.map(({ key, label, autoComplete }) => (
        <Field
          key={key}
          name={`billing_address.${key}`}
          label={label}
          error={errors[`billing_address.${key}`]}
        >
          {(props) => (
            <input
              {...props}
              autoComplete={autoComplete}
              value={values[key]}
              onChange={(event) => set(key, event.target.value)}
            />
          )}
        </Field>
      ))}
      <Field name="tax_id" label="Tax ID" error={errors.tax_id}>
        {(props) => (
          <input
            {...props}
            value={values.tax_id}
            onChange={(event) => set('tax_id', event.target.value)}
          />
        )}
      </Field>
      {problem && Object.keys(errors).length === 0 && (
        <p className="banner-error" role="alert">
          {problem}
        </p>
      )}
      <p className="status" role="status">
        {saved ? 'Saved.' : ''}
      </p>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Saving…' : 'Save billing details'}
      </button>
    </form>
  );
}
