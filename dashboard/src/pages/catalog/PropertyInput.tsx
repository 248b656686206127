import type { InputHTMLAttributes } from 'react';
import type { FieldErrors } from '../../api/client';
import { Field } from '../../components/Form';

interface PropertyInputProps
  extends Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'value' | 'onChange'> {
  /** The API's key of the value (`properties.prefix`): its error is found under it. */
  name: string;
  label: string;
  hint?: string;
  errors: FieldErrors;
  value: string;
  onChange: (value: string) => void;
}

/**
 * A labelled text input for a value nested in the body (a benefit's or custom field's
 * `properties`), which the form's TextField (top-level keys) cannot bind.
 */
export function PropertyInput({
  name,
  label,
  hint,
  errors,
  value,
  onChange,
  required = false,
  ...input
}: PropertyInputProps) {
  return (
    <Field name={name} label={label} hint={hint} error={errors[name]} required={required}>
      {(props) => (
        <input
          {...input}
          {...props}
          name={name}
          required={required}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
