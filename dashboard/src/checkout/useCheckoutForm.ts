import { useCallback, useEffect, useRef, useState } from 'react';
import { type CheckoutApiError, type CheckoutPublic, getCheckout, updateCheckout } from './api';
import { forgetDraft, restoreDraft, saveDraft } from './draft';
import { type FieldErrors, focusFirstError } from './fields';
import {
  type CheckoutForm,
  expiredMessage,
  type FormValues,
  initialValues,
  type Phase,
} from './form';
import { showRefusal } from './refusal';
import { usePaymentPolling } from './usePaymentPolling';
import { useTaxUpdates } from './useTaxUpdates';

/**
 * The hosted checkout's state: the checkout as the server last answered it, what the buyer
 * entered, errors by field and a banner for the rest, why the checkout is closed, and the phase.
 * Loads the checkout (with what the buyer typed before a reload), sends the changes the server
 * prices (`save`; the buyer's place for tax as it is typed, see useTaxUpdates), shows refusals
 * (`refused`) and follows the payment once confirmed.
 */
export function useCheckoutForm(
  clientSecret: string,
  onSucceeded: (checkout: CheckoutPublic) => void,
) {
  const [checkout, setCheckout] = useState<CheckoutPublic | null>(null);
  const [values, setValues] = useState<FormValues | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [closed, setClosed] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('editing');
  const formRef = useRef<HTMLFormElement>(null);

  const received = useCallback(
    (next: CheckoutPublic) => {
      setCheckout(next);
      if (next.status === 'succeeded') {
        forgetDraft(next.id);
        onSucceeded(next);
      }
      if (next.status === 'expired') setClosed(expiredMessage);
    },
    [onSucceeded],
  );

  useEffect(() => {
    getCheckout(clientSecret)
      .then((loaded) => {
        setValues(restoreDraft(loaded.id, initialValues(loaded)));
        received(loaded);
        if (loaded.status === 'failed' && loaded.payment_error) {
          setErrors({ confirmation_token_id: loaded.payment_error.message });
        }
        if (loaded.status === 'confirmed') setPhase('processing');
      })
      .catch((error: CheckoutApiError) => {
        setClosed(
          error.status === 410
            ? expiredMessage
            : error.status === 404
              ? 'This checkout does not exist.'
              : error.message,
        );
      });
  }, [clientSecret, received]);

  // What the buyer types survives a reload of the tab, until the checkout is paid.
  const checkoutId = checkout?.id;
  const open = checkout?.status === 'open' || checkout?.status === 'failed';
  useEffect(() => {
    if (checkoutId && open && values) saveDraft(checkoutId, values);
  }, [checkoutId, open, values]);

  // Asked after an invalid submit; run once the errors it follows are rendered.
  const [errorFocus, setErrorFocus] = useState(0);
  const focusErrors = useCallback(() => setErrorFocus((asked) => asked + 1), []);
  useEffect(() => {
    if (errorFocus > 0) focusFirstError(formRef.current);
  }, [errorFocus]);

  const refused = useCallback(
    (error: unknown) => showRefusal(error, { setBanner, setClosed, setErrors, focusErrors }),
    [focusErrors],
  );

  const save: CheckoutForm['save'] = async (update, clears) => {
    setPhase('saving');
    setBanner(null);
    try {
      const next = await updateCheckout(clientSecret, update);
      setErrors((current) => {
        const kept = { ...current };
        for (const key of clears) delete kept[key];
        return kept;
      });
      received(next);
      return next;
    } catch (error) {
      refused(error);
      return null;
    } finally {
      setPhase('editing');
    }
  };

  const repricing = useTaxUpdates({
    clientSecret,
    checkout,
    values,
    open,
    phase,
    setPhase,
    setErrors,
    received,
    refused,
  });

  const slowPayment = usePaymentPolling(clientSecret, phase, {
    received,
    setErrors,
    setPhase,
    setClosed,
  });

  const set = (change: Partial<FormValues>) =>
    setValues((current) => current && { ...current, ...change });

  return {
    checkout,
    values,
    setValues,
    set,
    errors,
    setErrors,
    banner,
    setBanner,
    closed,
    phase,
    setPhase,
    slowPayment,
    /** The buyer's place changed and the total shown is not yet priced for it. */
    repricing,
    formRef,
    received,
    refused,
    focusErrors,
    save,
  };
}

export type CheckoutState = ReturnType<typeof useCheckoutForm>;
