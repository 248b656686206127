import type { AttachedCustomField, CustomFieldValue } from './api';
import { Field, inputId } from './fields';
import type { CheckoutForm } from './form';

/** The seller's custom fields of the product, in their order. */
export function CustomFields({ form }: { form: CheckoutForm }) {
  const { checkout, values, errors } = form;
  const customFields = [...checkout.attached_custom_fields].sort((a, b) => a.order - b.order);
  return customFields.map((attached) => (
    <CustomFieldInput
      key={attached.custom_field_id}
      attached={attached}
      value={values.customFields[attached.custom_field.slug] ?? null}
      error={errors[`custom_field_data.${attached.custom_field.slug}`]}
      onChange={(value) =>
        form.setValues(
          (current) =>
            current && {
              ...current,
              customFields: { ...current.customFields, [attached.custom_field.slug]: value },
            },
        )
      }
    />
  ));
}

/** The buyer's value of a custom field as the API takes it (numbers as integers). */
function customFieldInput(field: AttachedCustomField, text: string): CustomFieldValue {
  if (text === '') return null;
  if (field.custom_field.type === 'number') {
    const number = Number(text);
    return Number.isInteger(number) ? number : text;
  }
  return text;
}

interface CustomFieldInputProps {
  attached: AttachedCustomField;
  value: CustomFieldValue;
  error: string | undefined;
  onChange: (value: CustomFieldValue) => void;
}

/** One of the seller's custom fields, by its type. */
function CustomFieldInput({ attached, value, error, onChange }: CustomFieldInputProps) {
  const field = attached.custom_field;
  const { properties } = field;
  const name = `custom_field_data.${field.slug}`;
  const label = properties.form_label ?? field.name;
  if (field.type === 'checkbox') {
    const id = inputId(name);
    return (
      <div className={`field${error ? ' field-invalid' : ''}`}>
        <label className="choice" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            aria-invalid={Boolean(error)}
            aria-required={attached.required}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(event) => onChange(event.target.checked)}
          />
          <span>{label}</span>
        </label>
        {properties.form_help_text && <p className="field-hint">{properties.form_help_text}</p>}
        {error && (
          <p className="field-error" id={`${id}-error`} role="alert">
            {error}
          </p>
        )}
      </div>
    );
  }
  const text = value === null || value === undefined ? '' : String(value);
  return (
    <Field
      name={name}
      label={label}
      required={attached.required}
      error={error}
      hint={properties.form_help_text}
    >
      {(props) =>
        field.type === 'select' ? (
          <select
            {...props}
            value={text}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          >
            <option value="">{properties.form_placeholder ?? 'Choose…'}</option>
            {(properties.options ?? []).map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        ) : field.type === 'text' && properties.textarea ? (
          <textarea
            {...props}
            value={text}
            placeholder={properties.form_placeholder}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          />
        ) : (
          <input
            {...props}
            type={field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text'}
            value={text}
            placeholder={properties.form_placeholder}
            min={field.type === 'number' ? properties.ge : undefined}
            max={field.type === 'number' ? properties.le : undefined}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          />
        )
      }
    </Field>
  );
}
