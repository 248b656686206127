import { CheckoutApiError } from './api';
import { type FieldErrors, fieldErrorsOf, inputId } from './fields';
import { expiredMessage } from './form';

interface RefusalTargets {
  setBanner: (banner: string) => void;
  setClosed: (message: string) => void;
  setErrors: (errors: FieldErrors) => void;
  /** Brings the first refused field into view and focus, once the errors are shown. */
  focusErrors: () => void;
}

/** Shows a refusal next to the fields it names, or above the form; an expired checkout closes. */
export function showRefusal(
  error: unknown,
  { setBanner, setClosed, setErrors, focusErrors }: RefusalTargets,
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
    focusErrors();
    const shown = Object.keys(found).some((key) => document.getElementById(inputId(key)));
    if (!shown) setBanner(error.issues.map((issue) => issue.msg).join(' '));
    return;
  }
  setBanner(error.message);
}
