import { type ReactNode, useEffect, useRef, useState } from 'react';
import { CheckoutApiError } from '../checkout/api';
import { type AuthenticationRun, runAuthentication } from '../checkout/payment';
import type { PortalApi } from './api';
import { usePortal, useProblem } from './resource';

/**
 * The bank's 3-D Secure check in the portal. With Stripe.js it runs over the page; in test mode
 * the customer goes to the Stripe simulator's challenge page, which sends them back here: what
 * the check was for is kept for this tab (sessionStorage) so the portal finishes it on return.
 */

/** What to finish once the check is done: the card being added, or the renewal being paid. */
export type AuthenticatedStep =
  | { kind: 'card'; setupIntentId: string; setDefault: boolean }
  | { kind: 'payment'; orderId: string };

/** What an answer asking for the check carries (next_action_url: Tollgate's extra). */
interface AuthenticationAsked {
  client_secret: string;
  next_action_url?: string | undefined;
}

const storageKey = 'tollgate.portal.authentication';

function keep(step: AuthenticatedStep | null) {
  try {
    if (step) sessionStorage.setItem(storageKey, JSON.stringify(step));
    else sessionStorage.removeItem(storageKey);
  } catch {
    // Storage disabled: the customer finds the outcome in the portal after the check.
  }
}

function kept(): AuthenticatedStep | null {
  try {
    const stored = sessionStorage.getItem(storageKey);
    return stored ? (JSON.parse(stored) as AuthenticatedStep) : null;
  } catch {
    return null;
  }
}

/** A SetupIntent's (or PaymentIntent's) id, from its client secret (`seti_…_secret_…`). */
export const intentIdOf = (clientSecret: string) =>
  clientSecret.split('_secret_')[0] ?? clientSecret;

/**
 * Runs the check an answer asks for, `step` kept to be finished if the page leaves for the
 * challenge (`ended: false`); when it ends here, the caller finishes the step itself.
 */
export async function authenticate(
  asked: AuthenticationAsked,
  step: AuthenticatedStep,
): Promise<AuthenticationRun> {
  keep(step);
  const run = await runAuthentication({
    intent_client_secret: asked.client_secret,
    intent_next_action_url: asked.next_action_url,
  });
  if (run.ended) keep(null);
  return run;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What finishing a step came to, said to the customer. */
export interface StepOutcome {
  succeeded: boolean;
  message: string;
}

/**
 * Waits (about half a minute at most) until the order's payment is decided: the subscription's
 * workflow settles it once Stripe tells the outcome of the check.
 */
async function settledPayment(api: PortalApi, orderId: string): Promise<StepOutcome> {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const { status, error } = await api.paymentStatus(orderId);
    if (status === 'succeeded') {
      return { succeeded: true, message: 'Thank you: the payment went through.' };
    }
    if (status === 'failed') {
      return { succeeded: false, message: error ?? 'The payment failed. Try another card.' };
    }
    await sleep(500);
  }
  return {
    succeeded: false,
    message: 'Your payment is still being confirmed. Check your orders again in a few minutes.',
  };
}

/** Finishes what the check was for: the card saved (confirmed), or the payment's outcome. */
export async function finishStep(api: PortalApi, step: AuthenticatedStep): Promise<StepOutcome> {
  if (step.kind === 'payment') return settledPayment(api, step.orderId);
  const confirmed = await api
    .confirmPaymentMethod(step.setupIntentId, step.setDefault)
    .catch((error: unknown) => {
      // The SetupIntent failed: after the check, that is the check failing.
      if (error instanceof CheckoutApiError && error.status === 422) return null;
      throw error;
    });
  if (confirmed?.status === 'succeeded') return { succeeded: true, message: 'The card was saved.' };
  const message = confirmed
    ? 'Your bank’s check was not completed: the card was not saved.'
    : 'Your card could not be authenticated: it was not saved. Try again, or use another card.';
  return { succeeded: false, message };
}

/**
 * Back from the bank's challenge: finishes the kept step before the portal's sections load (so
 * they show the saved card or the paid order), then says how it went above them.
 */
export function AfterAuthentication({ children }: { children: ReactNode }) {
  const { api } = usePortal();
  const describe = useProblem();
  const [step] = useState(kept);
  const [outcome, setOutcome] = useState<StepOutcome | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (!step || started.current) return;
    started.current = true;
    keep(null);
    finishStep(api, step).then(setOutcome, (error: unknown) =>
      setOutcome({
        succeeded: false,
        message: describe(error, 'Your bank’s check could not be finished. Try again.'),
      }),
    );
  }, [api, describe, step]);

  if (step && !outcome) {
    return (
      <p className="muted" aria-busy="true">
        {step.kind === 'card' ? 'Saving your card…' : 'Confirming your payment…'}
      </p>
    );
  }
  return (
    <>
      {outcome?.succeeded && (
        <p className="portal-notice" role="status">
          {outcome.message}
        </p>
      )}
      {outcome && !outcome.succeeded && (
        <div className="banner-error" role="alert">
          <p>{outcome.message}</p>
        </div>
      )}
      {children}
    </>
  );
}
