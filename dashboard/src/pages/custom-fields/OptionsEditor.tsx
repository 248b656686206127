import type { FieldErrors } from '../../api/client';
import { PropertyInput } from '../catalog/PropertyInput';
import type { SelectOption } from './form';

interface OptionsEditorProps {
  options: SelectOption[];
  errors: FieldErrors;
  onChange: (options: SelectOption[]) => void;
}

/** A select field's options: a value (stored) and a label (shown) each. */
export function OptionsEditor({ options, errors, onChange }: OptionsEditorProps) {
  const set = (index: number, option: SelectOption) =>
    onChange(options.map((old, at) => (at === index ? option : old)));
  return (
    <fieldset className="catalog-group">
      <legend>Options</legend>
      {errors['properties.options'] && (
        <p className="field-error" role="alert">
          {errors['properties.options']}
        </p>
      )}
      {options.map((option, index) => (
        // Options have no id of their own; their place in the list is their identity here.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div key={index} className="inline-inputs">
          <PropertyInput
            name={`properties.options.${index}.value`}
            label={`Option ${index + 1} value`}
            errors={errors}
            required
            value={option.value}
            onChange={(value) => set(index, { ...option, value })}
          />
          <PropertyInput
            name={`properties.options.${index}.label`}
            label={`Option ${index + 1} label`}
            errors={errors}
            required
            value={option.label}
            onChange={(label) => set(index, { ...option, label })}
          />
          <button
            type="button"
            className="button button-quiet"
            disabled={options.length === 1}
            onClick={() => onChange(options.filter((_, at) => at !== index))}
          >
            Remove <span className="visually-hidden">option {index + 1}</span>
          </button>
        </div>
      ))}
      <div>
        <button
          type="button"
          className="button"
          onClick={() => onChange([...options, { value: '', label: '' }])}
        >
          Add option
        </button>
      </div>
    </fieldset>
  );
}
