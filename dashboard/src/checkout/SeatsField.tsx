import { useState } from 'react';
import { minimumSeats } from '../../../domain/prices.ts';
import { Field } from './fields';
import type { CheckoutForm } from './form';
import { formatMoney } from './money';

/** How many seats of a seat-based price, at least the fewest it sells: priced by the server once typed. */
export function SeatsField({ form }: { form: CheckoutForm }) {
  const { checkout, errors } = form;
  const price = checkout.product_price;
  const bought = checkout.seats ?? minimumSeats;
  const [text, setText] = useState(String(bought));
  if (price.amount_type !== 'seat_based') return null;

  async function commitSeats() {
    const seats = Number(text);
    if (!Number.isInteger(seats) || seats < minimumSeats) {
      form.setErrors({
        ...errors,
        seats: `Enter a whole number of seats, at least ${minimumSeats}.`,
      });
      return;
    }
    if (seats !== bought) await form.save({ seats }, ['seats']);
  }

  return (
    <Field
      name="seats"
      label="Seats"
      required
      error={errors.seats}
      hint={`${formatMoney(price.price_per_seat, price.price_currency)} per seat, at least ${minimumSeats}`}
    >
      {(props) => (
        <input
          {...props}
          type="number"
          inputMode="numeric"
          min={minimumSeats}
          step={1}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onBlur={commitSeats}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void commitSeats();
            }
          }}
        />
      )}
    </Field>
  );
}
