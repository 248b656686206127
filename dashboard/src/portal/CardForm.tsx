import { type FormEvent, type ReactNode, useCallback, useRef, useState } from 'react';
import {
  type ConfirmationTokenSource,
  StripeCard,
  TestPaymentMethods,
  testPaymentMethods,
} from '../checkout/payment';
import { authenticate, intentIdOf } from './authentication';
import { usePortal, useProblem } from './resource';

interface CardFormProps {
  /** What the card is for, the form's accessible name. */
  label: string;
  submitLabel: string;
  /** What Stripe Elements shows the card will be used for. */
  amount: number;
  currency: string;
  /** Uses the card's confirmation token; answers a problem to show, or null when done. */
  onToken: (confirmationTokenId: string) => Promise<string | null>;
  onCancel: () => void;
  children?: ReactNode;
}

/**
 * A new card, collected as the hosted checkout collects it (Stripe Elements with a publishable
 * key, Stripe's test cards without): a confirmation token for the portal's card calls.
 */
export function CardForm({
  label,
  submitLabel,
  amount,
  currency,
  onToken,
  onCancel,
  children,
}: CardFormProps) {
  const { stripePublishableKey } = usePortal();
  const [testCard, setTestCard] = useState<string>(testPaymentMethods[0].id);
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const tokenSource = useRef<ConfirmationTokenSource | null>(null);
  const onReady = useCallback((source: ConfirmationTokenSource) => {
    tokenSource.current = source;
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      let token = testCard;
      if (stripePublishableKey) {
        if (!tokenSource.current) throw new Error('The card form is still loading.');
        token = await tokenSource.current();
      }
      setProblem((await onToken(token)) ?? undefined);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : 'The card could not be read.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="portal-card-form" aria-label={label} onSubmit={submit}>
      {stripePublishableKey ? (
        <StripeCard
          publishableKey={stripePublishableKey}
          amount={amount}
          currency={currency}
          error={problem}
          onReady={onReady}
        />
      ) : (
        <TestPaymentMethods value={testCard} onChange={setTestCard} error={problem} />
      )}
      {children}
      <div className="portal-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface AddCardFormProps {
  amount: number;
  currency: string;
  setDefault: boolean;
  onCancel: () => void;
  onAdded: () => void;
}

/** Saves a new card to the customer (addPaymentMethod). */
export function AddCardForm({ amount, currency, setDefault, onCancel, onAdded }: AddCardFormProps) {
  const { api } = usePortal();
  const describe = useProblem();
  const [makeDefault, setMakeDefault] = useState(setDefault);
  return (
    <CardForm
      label="New card"
      submitLabel="Save card"
      amount={amount}
      currency={currency}
      onCancel={onCancel}
      onToken={async (confirmationTokenId) => {
        try {
          let added = await api.addPaymentMethod(confirmationTokenId, makeDefault);
          if (added.status === 'requires_action') {
            // The bank's 3-D Secure check, then the card's setup confirmed (after the
            // challenge page, by AfterAuthentication).
            const setupIntentId = intentIdOf(added.client_secret);
            const run = await authenticate(added, {
              kind: 'card',
              setupIntentId,
              setDefault: makeDefault,
            });
            if (!run.ended) return null;
            if (run.problem) return run.problem;
            added = await api.confirmPaymentMethod(setupIntentId, makeDefault);
            if (added.status !== 'succeeded') return 'The card could not be confirmed.';
          }
          onAdded();
          return null;
        } catch (error) {
          return describe(error, 'The card could not be saved. Try again.');
        }
      }}
    >
      {!setDefault && (
        <label className="choice">
          <input
            type="checkbox"
            checked={makeDefault}
            onChange={(event) => setMakeDefault(event.target.checked)}
          />
          Use this card for my subscriptions
        </label>
      )}
    </CardForm>
  );
}
