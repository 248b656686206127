import type { RefObject } from 'react';
import { CheckoutApiError } from './api';
import { type FieldErrors, fieldErrorsOf, focusFirstError, inputId } from './fields';
import { expiredMessage } from './form';

interface RefusalTargets {
  form: RefObject<HTMLFormElement | null>;
  setBanner: (banner: string) => void;
  setClosed: (message: string) => void;
  setErrors: (errors: FieldErrors) => void;
}

/** Shows a refusal next to the fields it names, or above the form; an expired checkout closes. */
export function showRefusal(
  error: unknown,
  { form, setBanner, setClosed, setErrors }: RefusalTargets,
) {
  if (!(error instanceof CheckoutApiError)) {
    setBanner('The connection failed. Check your network and try again.');
    return;
  }
  if (error.status === 410) {
    setClosed(expiredMessage);
    return;
  }
  if (error.error === 'PaymentError') {
    setErrors({ confirmation_token_id: error.message });
    return;
  }
  if (error.issues.length > 0) {
    const found = fieldErrorsOf(error.issues);
    setErrors(found);
    // Once shown, the first field refused is scrolled to and focused.
    requestAnimationFrame(() => focusFirstError(form.current));
    const shown = Object.keys(found).some((key) => document.getElementById(inputId(key)));
    if (!shown) setBanner(error.issues.map((issue) => issue.msg).join(' '));
    return;
  }
  setBanner(error.message);
}
