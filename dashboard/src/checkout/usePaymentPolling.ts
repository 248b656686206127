import { useEffect, useState } from 'react';
import { CheckoutApiError, type CheckoutPublic, getCheckout } from './api';
import type { FieldErrors } from './fields';
import { expiredMessage, type Phase } from './form';
import { type PendingAuthentication, runAuthentication } from './payment';

interface PollingTargets {
  received: (next: CheckoutPublic) => void;
  setErrors: (errors: FieldErrors) => void;
  setPhase: (phase: Phase) => void;
  setClosed: (message: string) => void;
}

/** The 3-D Secure step the checkout waits for, if any (by its intent's id, never its secret). */
function pendingAuthenticationOf(checkout: CheckoutPublic) {
  const pending = (checkout as { payment_processor_metadata?: PendingAuthentication })
    .payment_processor_metadata;
  if (checkout.status !== 'confirmed' || pending?.intent_status !== 'requires_action') return null;
  const intentId = pending.intent_client_secret?.split('_secret_')[0];
  return intentId ? { pending, intentId } : null;
}

// The steps begun (then reported ended) in this tab: back from the challenge page, the step is
// reported, not shown again.
const stepKey = (intentId: string) => `tollgate-3ds:${intentId}`;

/** Tells the API the step ended, so the payment is looked at without waiting for the webhook. */
const reportAuthenticationEnded = (clientSecret: string) =>
  fetch(`/v1/checkouts/client/${encodeURIComponent(clientSecret)}/authentication`, {
    method: 'POST',
    headers: { Accept: 'application/json' },
  });

/**
 * While the payment is decided (`processing`), the checkout is read again each second; a failed
 * payment returns the form to editing with its error. A payment that waits for the buyer's
 * 3-D Secure step runs it once (see runAuthentication). True once the payment has been undecided
 * for long: it waits on the bank, and the buyer is told.
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
    const authenticate = async (next: CheckoutPublic) => {
      const waiting = pendingAuthenticationOf(next);
      if (!waiting) return;
      const key = stepKey(waiting.intentId);
      const step = sessionStorage.getItem(key);
      if (step === 'reported') return;
      if (step !== 'begun') {
        sessionStorage.setItem(key, 'begun');
        setSlowPayment(true);
        const run = await runAuthentication(waiting.pending);
        if (!run.ended) return;
        // A failed check fails the payment: the checkout read next says so.
        if (run.problem && !stopped) setErrors({ confirmation_token_id: run.problem });
      }
      sessionStorage.setItem(key, 'reported');
      await reportAuthenticationEnded(clientSecret).catch(() => undefined);
    };
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
        await authenticate(next);
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
