import { createContext, type ReactNode, useContext } from 'react';
import type { ValidationIssue } from './api';

/** Field errors by field key: the 422's `loc` after `body`, joined with dots. */
export type FieldErrors = Record<string, string>;

export const fieldKey = (loc: (string | number)[]) =>
  (loc[0] === 'body' ? loc.slice(1) : loc).join('.');

export function fieldErrorsOf(issues: ValidationIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = fieldKey(issue.loc);
    errors[key] ??= issue.msg;
  }
  return errors;
}

/**
 * After an invalid submit: brings the first refused field into the middle of the view and
 * focuses it, so keyboard and screen-reader users land on it and everyone sees it (a long form
 * on a phone puts it off screen).
 */
export function focusFirstError(container: HTMLElement | null) {
  const first = container?.querySelector<HTMLElement>(
    '[aria-invalid="true"], .field-invalid input:checked, .field-invalid input',
  );
  if (!first) return;
  first.scrollIntoView({ block: 'center' });
  first.focus({ preventScroll: true });
}

/** The DOM id of a field's input, from its key (`customer_billing_address.line1`). */
export const inputId = (key: string) => `field-${key.replace(/[^a-zA-Z0-9_-]/g, '-')}`;

/** The ids of a field's hint and error, for its input's aria-describedby (none: undefined). */
export const describedBy = (id: string, hint: string | undefined, error: string | undefined) =>
  [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;

/** A field's hint and error under its input, under the ids `describedBy` names. */
export function FieldMessages({
  id,
  hint,
  error,
}: {
  id: string;
  hint?: string | undefined;
  error?: string | undefined;
}) {
  return (
    <>
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </>
  );
}

interface FieldProps {
  name: string;
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  required?: boolean;
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
    'aria-required': boolean;
  }) => ReactNode;
}

/**
 * A prefix for the ids of the fields inside it: a form opened over another (a dialog) may have
 * a field of the same name (`description`), and a label finds its input by a unique id.
 */
export const FieldIdScope = createContext('');

/**
 * A labelled input with its hint and its error next to it; the input is told about both
 * (aria-describedby) so screen readers read them with it.
 */
export function Field({ name, label, error, hint, required = false, children }: FieldProps) {
  const id = inputId(`${useContext(FieldIdScope)}${name}`);
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>
        {label}
        {required ? (
          <span aria-hidden="true" className="required-mark">
            {' '}
            *
          </span>
        ) : (
          <span className="optional-mark"> (optional)</span>
        )}
      </label>
      {children({
        id,
        'aria-invalid': Boolean(error),
        'aria-describedby': describedBy(id, hint, error),
        'aria-required': required,
      })}
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

interface RadioListProps<Option extends { id: string }> {
  /** The choice's name, shared by its radios. */
  name: string;
  options: readonly Option[];
  /** The id of the option chosen. */
  checked: string;
  disabled?: boolean;
  onPick: (option: Option) => void;
  /** An option's label. */
  children: (option: Option) => ReactNode;
}

/** One radio per option, each in its label: a choice among the options. */
export function RadioList<Option extends { id: string }>({
  name,
  options,
  checked,
  disabled,
  onPick,
  children,
}: RadioListProps<Option>) {
  return options.map((option) => (
    <label key={option.id} className="choice">
      <input
        type="radio"
        name={name}
        value={option.id}
        checked={checked === option.id}
        disabled={disabled}
        onChange={() => onPick(option)}
      />
      {children(option)}
    </label>
  ));
}
