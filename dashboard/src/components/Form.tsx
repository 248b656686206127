/**
 * Forms that mirror the API: `useApiForm` keeps the values (never cleared by a failed request),
 * optionally checks them first with the API's own zod schema (imported from ../../../domain or
 * commerce schema files that have no server-only imports), sends them, and puts each refusal
 * next to the field the API names. Field names are the API's field keys (`name`,
 * `prices.0.price_amount`), so a 422 `loc` finds its field without mapping.
 *
 *   const form = useApiForm({ name: '' }, (values) => api.post('/v1/products/', values), {
 *     onSuccess: (product) => navigate(`/products/${product.id}`),
 *   });
 *   <Form form={form} submitLabel="Create product">
 *     <TextField form={form} name="name" label="Name" required />
 *   </Form>
 */
import { useMutation } from '@tanstack/react-query';
import {
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  useState,
} from 'react';
import { ApiError, type FieldErrors, fieldKeyOf } from '../api/client';
import { humanMessage } from '../api/issues';
import { Field } from '../checkout/fields';

/** What zod's `safeParse` answers; any schema of the form's values fits. */
interface ValuesSchema {
  safeParse(values: unknown): {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

interface ApiFormOptions<Result> {
  /** Checked before sending; its issues show next to their fields, as the API's would. */
  schema?: ValuesSchema;
  onSuccess?: (result: Result) => void;
}

export interface ApiForm<Values extends object> {
  values: Values;
  setValue: <Name extends keyof Values>(name: Name, value: Values[Name]) => void;
  fieldErrors: FieldErrors;
  /** The refusal when it names no field of the form (or a failure that is not a refusal). */
  formError: Error | null;
  pending: boolean;
  submit: (event?: FormEvent) => void;
}

export function useApiForm<Values extends object, Result>(
  initial: Values,
  send: (values: Values) => Promise<Result>,
  { schema, onSuccess }: ApiFormOptions<Result> = {},
): ApiForm<Values> {
  const [values, setValues] = useState(initial);
  const [localErrors, setLocalErrors] = useState<FieldErrors>({});
  const mutation = useMutation({ mutationFn: send, onSuccess });
  const apiError = mutation.error instanceof ApiError ? mutation.error : null;
  const fieldErrors = { ...(apiError?.fieldErrors ?? {}), ...localErrors };
  const namesField = (key: string) =>
    Object.keys(values).some((name) => key === name || key.startsWith(`${name}.`));
  const unplaced = apiError && !Object.keys(apiError.fieldErrors).some(namesField);
  return {
    values,
    setValue: (name, value) => setValues((current) => ({ ...current, [name]: value })),
    fieldErrors,
    formError: mutation.error && (!apiError || unplaced) ? mutation.error : null,
    pending: mutation.isPending,
    submit: (event) => {
      event?.preventDefault();
      const checked = schema?.safeParse(values);
      if (checked && !checked.success) {
        const errors: FieldErrors = {};
        for (const issue of checked.error?.issues ?? []) {
          const key = fieldKeyOf(
            issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
          );
          errors[key] ??= humanMessage(issue.message, key);
        }
        setLocalErrors(errors);
        return;
      }
      setLocalErrors({});
      mutation.mutate(values);
    },
  };
}

interface FormProps {
  form: Pick<ApiForm<object>, 'submit' | 'pending' | 'formError'>;
  submitLabel: string;
  children: ReactNode;
  /** Extra buttons beside the submit button (Cancel…). */
  actions?: ReactNode;
}

/** The form element: its fields, the error no field claims, and the submit button. */
export function Form({ form, submitLabel, children, actions }: FormProps) {
  return (
    <form className="form" onSubmit={form.submit} noValidate aria-busy={form.pending}>
      {form.formError && (
        <div className="error-message" role="alert">
          {form.formError.message}
        </div>
      )}
      {children}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={form.pending}>
          {form.pending ? `${submitLabel}…` : submitLabel}
        </button>
        {actions}
      </div>
    </form>
  );
}

type StringKeys<Values> = {
  [Name in keyof Values]: Values[Name] extends string ? Name : never;
}[keyof Values] &
  string;

interface TextFieldProps<Values extends object>
  extends Omit<InputHTMLAttributes<HTMLInputElement>, 'form' | 'name' | 'value' | 'onChange'> {
  form: ApiForm<Values>;
  name: StringKeys<Values>;
  label: string;
  hint?: string;
}

/** A labelled text input bound to a string value of the form, its error beside it. */
export function TextField<Values extends object>({
  form,
  name,
  label,
  hint,
  required = false,
  ...input
}: TextFieldProps<Values>) {
  return (
    <Field name={name} label={label} hint={hint} error={form.fieldErrors[name]} required={required}>
      {(props) => (
        <input
          {...input}
          {...props}
          name={name}
          required={required}
          value={form.values[name] as string}
          onChange={(event) => form.setValue(name, event.target.value as Values[typeof name])}
        />
      )}
    </Field>
  );
}

interface SelectFieldProps<Values extends object>
  extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'form' | 'name' | 'value' | 'onChange'> {
  form: ApiForm<Values>;
  name: StringKeys<Values>;
  label: string;
  options: readonly { value: string; label: string }[];
  hint?: string;
}

/** A labelled select bound to a string value of the form. */
export function SelectField<Values extends object>({
  form,
  name,
  label,
  options,
  hint,
  required = false,
  ...select
}: SelectFieldProps<Values>) {
  return (
    <Field name={name} label={label} hint={hint} error={form.fieldErrors[name]} required={required}>
      {(props) => (
        <select
          {...select}
          {...props}
          name={name}
          value={form.values[name] as string}
          onChange={(event) => form.setValue(name, event.target.value as Values[typeof name])}
        >
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** Any other control (checkbox group, money input…) in the same labelled frame. */
export { Field };
