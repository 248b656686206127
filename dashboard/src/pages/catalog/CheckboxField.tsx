import { describedBy, FieldMessages, inputId } from '../../checkout/fields';
import type { ApiForm } from '../../components/Form';
import './catalog.css';

type BooleanKeys<Values> = {
  [Name in keyof Values]: Values[Name] extends boolean ? Name : never;
}[keyof Values] &
  string;

interface CheckboxFieldProps<Values extends object> {
  form: ApiForm<Values>;
  name: BooleanKeys<Values>;
  label: string;
  hint?: string;
}

/** A labelled checkbox bound to a boolean value of the form, its error beside it. */
export function CheckboxField<Values extends object>({
  form,
  name,
  label,
  hint,
}: CheckboxFieldProps<Values>) {
  const id = inputId(name);
  const error = form.fieldErrors[name];
  return (
    <div className="field">
      <label className="checkbox-line" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          name={name}
          checked={form.values[name] as boolean}
          aria-invalid={Boolean(error)}
          aria-describedby={describedBy(id, hint, error)}
          onChange={(event) => form.setValue(name, event.target.checked as Values[typeof name])}
        />
        {label}
      </label>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}
