import { useEffect, useState } from 'react';
import { CheckoutApiError, type CheckoutPublic, getCheckout } from './api';
import type { FieldErrors } from './fields';
import { expiredMessage, type Phase } from './form';

interface PollingTargets {
  received: (next: CheckoutPublic) => void;
  setErrors: (errors: FieldErrors) => void;
  setPhase: (phase: Phase) => void;
  setClosed: (message: string) => void;
}

/**
 * While the payment is decided (`processing`), the checkout is read again each second; a failed
 * payment returns the form to editing with its error. True once the payment has been undecided
 * for long: it waits on the bank (3-D Secure), and the buyer is told.
 */
export function usePaymentPolling(
  clientSecret: string,
  phase: Phase,
  { received, setErrors, setPhase, setClosed }: PollingTargets,
): boolean {
  const [slowPayment, setSlowPayment] = useState(false);
  useEffect(() => {
    if (phase !== 'processing') return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const slow = setTimeout(() => setSlowPayment(true), 15_000);
    const poll = async () => {
      try {
        const next = await getCheckout(clientSecret);
        if (stopped) return;
        received(next);
        if (next.status === 'failed') {
          setErrors({
            confirmation_token_id: next.payment_error?.message ?? 'The payment failed.',
          });
          setPhase('editing');
          return;
        }
        if (next.status !== 'confirmed') return;
      } catch (error) {
        if (stopped) return;
        if (error instanceof CheckoutApiError && error.status === 410) {
          setClosed(expiredMessage);
          return;
        }
      }
      timer = setTimeout(poll, 1000);
    };
    timer = setTimeout(poll, 500);
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(slow);
      setSlowPayment(false);
    };
  }, [phase, clientSecret, received, setErrors, setPhase, setClosed]);
  return slowPayment;
}
