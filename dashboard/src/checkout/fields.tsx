import type { ReactNode } from 'react';
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

/** The DOM id of a field's input, from its key (`customer_billing_address.line1`). */
export const inputId = (key: string) => `field-${key.replace(/[^a-zA-Z0-9_-]/g, '-')}`;

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
 * A labelled input with its hint and its error next to it; the input is told about both
 * (aria-describedby) so screen readers read them with it.
 */
export function Field({ name, label, error, hint, required = false, children }: FieldProps) {
  const id = inputId(name);
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
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
        'aria-describedby': described || undefined,
        'aria-required': required,
      })}
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
    </div>
  );
}
