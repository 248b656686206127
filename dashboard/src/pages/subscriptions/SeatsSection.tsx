import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { minimumSeats } from '../../../../domain/prices.ts';
import type { ProrationBehavior } from '../../../../domain/subscriptions.ts';
import { ApiError, type FieldErrors } from '../../api/client';
import { FieldIdScope } from '../../checkout/fields';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Section } from '../../components/EntityPage';
import { Field } from '../../components/Form';
import { type Subscription, subscriptionsApi, subscriptionsKey } from './api';
import { ProrationField, ProrationPreview, useDefaultBehavior } from './ChangePlanSection';
import { type PlanChangePreview, previewSeatsChange } from './planChange';

interface SeatsSectionProps {
  /** A subscription to a seat-based price (its `seats` set). */
  subscription: Subscription;
  /** The subscription's time: its test clock's frozen time, else now. */
  now: () => Date;
}

/**
 * Changes how many seats a seat-based subscription bills: the count typed (at least the fewest a
 * price sells; Polar's prices carry no maximum), the proration previewed as the server computes
 * it, confirmed, then sent; a refusal shows next to the seats.
 */
export function SeatsSection({ subscription, now }: SeatsSectionProps) {
  const queryClient = useQueryClient();
  const defaultBehavior = useDefaultBehavior();
  const current = subscription.seats ?? minimumSeats;
  const [text, setText] = useState(String(current));
  const [chosenBehavior, setBehavior] = useState<ProrationBehavior | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<PlanChangePreview | null>(null);
  const behavior = chosenBehavior ?? defaultBehavior ?? 'prorate';
  const seats = Number(text);
  const preview = text.trim() ? previewSeatsChange(subscription, seats, behavior, now()) : null;

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (!preview) return setErrors({ seats: 'Enter the number of seats.' });
    if (!preview.ok) return setErrors({ seats: preview.refusal });
    setErrors({});
    setConfirming(preview);
  };

  const send = async () => {
    try {
      await subscriptionsApi.changeSeats(subscription.id, seats, behavior);
    } catch (failure) {
      if (failure instanceof ApiError && failure.fieldErrors.seats) {
        setErrors(failure.fieldErrors);
      }
      throw failure;
    }
    await queryClient.invalidateQueries({ queryKey: subscriptionsKey });
  };

  return (
    <Section title="Seats">
      <FieldIdScope value="seats.">
        <form className="form" onSubmit={review} noValidate aria-label="Change seats">
          <Field
            name="seats"
            label="Seats"
            hint={`Now ${current}; at least ${minimumSeats}.`}
            error={errors.seats}
            required
          >
            {(props) => (
              <input
                {...props}
                type="number"
                inputMode="numeric"
                min={minimumSeats}
                step={1}
                value={text}
                onChange={(event) => {
                  setText(event.target.value);
                  setErrors({});
                }}
              />
            )}
          </Field>
          <ProrationField
            value={behavior}
            onChange={setBehavior}
            error={errors.proration_behavior}
          />
          {preview?.ok && <ProrationPreview preview={preview} currency={subscription.currency} />}
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Review seats
            </button>
          </div>
        </form>
      </FieldIdScope>
      <ConfirmDialog
        open={confirming !== null}
        title={`Bill ${seats} ${seats === 1 ? 'seat' : 'seats'}?`}
        confirmLabel="Change seats"
        onConfirm={send}
        onClose={() => setConfirming(null)}
      >
        {confirming?.ok && (
          <ProrationPreview preview={confirming} currency={subscription.currency} />
        )}
      </ConfirmDialog>
    </Section>
  );
}
