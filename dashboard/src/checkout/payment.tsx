import { useEffect, useRef, useState } from 'react';
import { RadioList } from './fields';

/**
 * The card step. In test mode (no Stripe publishable key configured) the buyer picks one of
 * Stripe's documented test payment methods, sent as the confirmation token; with a key, Stripe
 * Elements collects the card and makes a confirmation token (`ctoken_…`).
 */

export const testPaymentMethods = [
  { id: 'pm_card_visa', label: 'Visa ending 4242', outcome: 'succeeds' },
  { id: 'pm_card_chargeDeclined', label: 'Visa ending 0002', outcome: 'is declined' },
  {
    id: 'pm_card_chargeDeclinedInsufficientFunds',
    label: 'Visa ending 9995',
    outcome: 'is declined: insufficient funds',
  },
  {
    id: 'pm_card_threeDSecure2Required',
    label: 'Visa ending 3220',
    outcome: 'asks for 3-D Secure: you complete or fail the check',
  },
  // For finance to reproduce a failed renewal: start a trial with it, and the renewal declines.
  {
    id: 'pm_card_chargeCustomerFail',
    label: 'Visa ending 0341',
    outcome: 'is saved, then every charge declined: a trial’s renewal fails',
  },
] as const;

interface TestMethodsProps {
  value: string;
  onChange: (id: string) => void;
  error: string | undefined;
}

export function TestPaymentMethods({ value, onChange, error }: TestMethodsProps) {
  return (
    <fieldset
      className={`payment-methods${error ? ' field-invalid' : ''}`}
      aria-describedby={error ? 'payment-error' : 'payment-test-note'}
    >
      <legend>Card</legend>
      <p className="field-hint" id="payment-test-note">
        Test mode: no real card is charged. Pick one of Stripe’s test cards.
      </p>
      <RadioList
        name="payment-method"
        options={testPaymentMethods}
        checked={value}
        onPick={(method) => onChange(method.id)}
      >
        {(method) => (
          <span>
            {method.label} <span className="muted">— {method.outcome}</span>
          </span>
        )}
      </RadioList>
      {error && (
        <p className="field-error" id="payment-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

// The few members of Stripe.js this page calls.
interface StripeElements {
  create(type: 'payment'): { mount(element: HTMLElement): void; destroy(): void };
  submit(): Promise<{ error?: { message?: string } }>;
  update(options: { amount: number; currency: string }): void;
}
interface StripeJs {
  elements(options: { mode: 'payment'; amount: number; currency: string }): StripeElements;
  createConfirmationToken(options: {
    elements: StripeElements;
  }): Promise<{ error?: { message?: string }; confirmationToken?: { id: string } }>;
  handleNextAction(options: { clientSecret: string }): Promise<{ error?: { message?: string } }>;
}
declare global {
  interface Window {
    Stripe?: (publishableKey: string) => StripeJs;
  }
}

function loadStripeJs(): Promise<NonNullable<Window['Stripe']>> {
  if (window.Stripe) return Promise.resolve(window.Stripe);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = 'https://js.stripe.com/v3/';
    script.onload = () => (window.Stripe ? resolve(window.Stripe) : reject(new Error('no Stripe')));
    script.onerror = () => reject(new Error('Stripe.js could not be loaded.'));
    document.head.append(script);
  });
}

/** The page's Stripe.js once the card element started loading it: 3-D Secure runs on it. */
let pageStripe: Promise<StripeJs> | null = null;

/**
 * What the checkout's `payment_processor_metadata` says while its payment (or card setup) waits
 * for the buyer's 3-D Secure step (see commerce/checkouts/outcomes.ts).
 */
export interface PendingAuthentication {
  intent_status?: string;
  intent_client_secret?: string;
  intent_next_action_url?: string;
}

/**
 * How running the 3-D Secure step went: ended on this page (with Stripe.js's problem, if any),
 * or the page left for the challenge.
 */
export type AuthenticationRun = { ended: true; problem: string | null } | { ended: false };

/**
 * Runs the 3-D Secure step: with Stripe, Stripe.js shows the bank's challenge over the page;
 * in test mode the buyer goes to the Stripe simulator's challenge page, which sends them back
 * here. How it ended is heard of through the checkout.
 */
export async function runAuthentication(
  pending: PendingAuthentication,
): Promise<AuthenticationRun> {
  const clientSecret = pending.intent_client_secret;
  if (pageStripe && clientSecret) {
    const stripe = await pageStripe;
    const { error } = await stripe.handleNextAction({ clientSecret });
    const problem = error ? (error.message ?? 'The card could not be authenticated.') : null;
    return { ended: true, problem };
  }
  if (pending.intent_next_action_url) {
    const challenge = new URL(pending.intent_next_action_url);
    challenge.searchParams.set('return_url', window.location.href);
    window.location.assign(challenge.href);
    return { ended: false };
  }
  return {
    ended: true,
    problem: 'Your bank asks to confirm this payment, and this page cannot show its check.',
  };
}

/** Makes the confirmation token of what the buyer entered, or throws its error message. */
export type ConfirmationTokenSource = () => Promise<string>;

interface StripeCardProps {
  publishableKey: string;
  amount: number;
  currency: string;
  error: string | undefined;
  onReady: (source: ConfirmationTokenSource) => void;
}

export function StripeCard({ publishableKey, amount, currency, error, onReady }: StripeCardProps) {
  const mountPoint = useRef<HTMLDivElement>(null);
  const elementsRef = useRef<StripeElements | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const initial = useRef({ amount, currency });

  useEffect(() => {
    let destroy: (() => void) | undefined;
    const loading = loadStripeJs().then((Stripe) => Stripe(publishableKey));
    pageStripe = loading;
    loading
      .then((stripe) => {
        const elements = stripe.elements({ mode: 'payment', ...initial.current });
        const element = elements.create('payment');
        if (mountPoint.current) element.mount(mountPoint.current);
        elementsRef.current = elements;
        destroy = () => element.destroy();
        onReady(async () => {
          const submitted = await elements.submit();
          if (submitted.error) throw new Error(submitted.error.message ?? 'Check the card.');
          const made = await stripe.createConfirmationToken({ elements });
          if (!made.confirmationToken) throw new Error(made.error?.message ?? 'Card refused.');
          return made.confirmationToken.id;
        });
      })
      .catch((cause: Error) => setLoadError(cause.message));
    return () => destroy?.();
  }, [publishableKey, onReady]);

  useEffect(() => {
    if (amount > 0) elementsRef.current?.update({ amount, currency });
  }, [amount, currency]);

  const shown = error ?? loadError ?? undefined;
  return (
    <fieldset className="payment-methods" aria-describedby={shown ? 'payment-error' : undefined}>
      <legend>Card</legend>
      <div ref={mountPoint} />
      {shown && (
        <p className="field-error" id="payment-error" role="alert">
          {shown}
        </p>
      )}
    </fieldset>
  );
}
