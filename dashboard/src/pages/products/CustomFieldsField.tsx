import { useQuery } from '@tanstack/react-query';
import type { FieldErrors } from '../../api/client';
import { Link } from '../../router';
import { productsApi } from './api';
import type { ProductFormValues } from './form';

type Attached = ProductFormValues['attached_custom_fields'];

interface CustomFieldsFieldProps {
  attached: Attached;
  errors: FieldErrors;
  onChange: (attached: Attached) => void;
}

/** Which of the organization's custom fields checkout asks for, and which it requires. */
export function CustomFieldsField({ attached, errors, onChange }: CustomFieldsFieldProps) {
  const fields = useQuery({
    queryKey: ['custom-fields', 'picker'],
    queryFn: ({ signal }) => productsApi.customFields(signal),
  });
  const error = Object.entries(errors).find(([key]) =>
    key.startsWith('attached_custom_fields'),
  )?.[1];
  const set = (id: string, change: { attach: boolean; required: boolean }) => {
    const others = attached.filter((field) => field.custom_field_id !== id);
    const kept = attached.some((field) => field.custom_field_id === id);
    if (!change.attach) return onChange(others);
    const entry = { custom_field_id: id, required: change.required };
    onChange(
      kept
        ? attached.map((field) => (field.custom_field_id === id ? entry : field))
        : [...others, entry],
    );
  };

  return (
    <fieldset className="form-group" aria-describedby={error ? 'custom-fields-error' : undefined}>
      <legend>Checkout fields</legend>
      {error && (
        <p className="field-error" id="custom-fields-error">
          {error}
        </p>
      )}
      {fields.isPending && <p className="muted">Loading custom fields…</p>}
      {fields.isError && (
        <p className="field-error">Could not load custom fields: {fields.error.message}</p>
      )}
      {fields.data?.items.length === 0 && (
        <p className="muted">
          No custom fields yet. <Link to="/custom-fields">Create one</Link> to ask buyers more.
        </p>
      )}
      {fields.data?.items.map((field) => {
        const entry = attached.find((one) => one.custom_field_id === field.id);
        return (
          <div key={field.id} className="checkbox-row">
            <label>
              <input
                type="checkbox"
                checked={Boolean(entry)}
                onChange={(event) =>
                  set(field.id, { attach: event.target.checked, required: false })
                }
              />{' '}
              {field.name} <span className="muted">({field.type})</span>
            </label>
            <label>
              <input
                type="checkbox"
                checked={entry?.required ?? false}
                disabled={!entry}
                onChange={(event) =>
                  set(field.id, { attach: true, required: event.target.checked })
                }
              />{' '}
              Required
            </label>
          </div>
        );
      })}
    </fieldset>
  );
}
