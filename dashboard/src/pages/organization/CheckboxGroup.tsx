import { useId } from 'react';
import '../catalog/catalog.css';
import './organization.css';

interface CheckboxGroupProps {
  legend: string;
  options: readonly string[];
  selected: string[];
  /** The refusal of the list (none chosen, an unknown value), shown under the legend. */
  error: string | undefined;
  onChange: (selected: string[]) => void;
}

/** A checkbox per value (scopes, event types), in columns; the chosen values in their order. */
export function CheckboxGroup({ legend, options, selected, error, onChange }: CheckboxGroupProps) {
  const errorId = useId();
  const toggle = (value: string, on: boolean) =>
    onChange(on ? [...selected, value] : selected.filter((other) => other !== value));
  return (
    <fieldset className="catalog-group" aria-describedby={error ? errorId : undefined}>
      <legend>{legend}</legend>
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
      <div className="checkbox-columns">
        {options.map((value) => (
          <label key={value} className="checkbox-line">
            <input
              type="checkbox"
              checked={selected.includes(value)}
              onChange={(event) => toggle(value, event.target.checked)}
            />
            {value}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
