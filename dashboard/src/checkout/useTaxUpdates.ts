import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from 'react';
import { billingAddressOf } from './address';
import { CheckoutApiError, type CheckoutPublic, type CheckoutUpdate, updateCheckout } from './api';
import { type FieldErrors, fieldErrorsOf } from './fields';
import { type FormValues, initialValues, type Phase } from './form';

/** How long the buyer's typing rests before the checkout is priced for their place. */
const repriceDelayMs = 500;

/**
 * What places the buyer for tax, as the update sends it: the billing address as typed (none
 * until a country is chosen) and a business's tax id (none for a consumer, or without a country
 * to read it in).
 */
export function taxPlaceOf(checkout: CheckoutPublic, values: FormValues): CheckoutUpdate {
  const address = billingAddressOf(checkout, values.address);
  return {
    customer_billing_address: address as CheckoutUpdate['customer_billing_address'],
    customer_tax_id: address && values.isBusiness ? values.taxId.trim() || null : null,
  };
}

/** The parts of the place the tax depends on: a change of another part (the city) reprices nothing. */
export function taxPlaceKey(place: CheckoutUpdate): string {
  const address = place.customer_billing_address;
  return JSON.stringify([
    address?.country ?? null,
    address?.postal_code ?? null,
    address?.state ?? null,
    place.customer_tax_id ?? null,
  ]);
}

/** The errors of the place's fields, which a reprice answers anew. */
const isPlaceError = (key: string) =>
  key === 'customer_tax_id' || key.startsWith('customer_billing_address');

const withoutPlaceErrors = (errors: FieldErrors) =>
  Object.fromEntries(Object.entries(errors).filter(([key]) => !isPlaceError(key)));

interface RepriceTargets {
  clientSecret: string;
  checkout: CheckoutPublic | null;
  values: FormValues | null;
  /** The checkout can still change (open, or its payment failed). */
  open: boolean;
  phase: Phase;
  setPhase: (phase: Phase) => void;
  setErrors: Dispatch<SetStateAction<FieldErrors>>;
  received: (next: CheckoutPublic) => void;
  /** Shows a refusal that is not about the place's fields (the banner, an expired checkout). */
  refused: (error: unknown) => void;
}

/**
 * Prices the checkout for the buyer's place as they fill it in: once the country, postal code,
 * state or tax id typed rests for a moment, the checkout is updated, and the server answers its
 * tax lines and total (the pay button shows what the card is charged). A refused value (an
 * invalid tax id) shows next to its field, without moving the focus from where the buyer types.
 * `pending` while the total shown is not yet the place's: the pay button waits for it.
 */
export function useTaxUpdates({
  clientSecret,
  checkout,
  values,
  open,
  phase,
  setPhase,
  setErrors,
  received,
  refused,
}: RepriceTargets) {
  // The place last sent, first the one the checkout was loaded with (a draft restored after a
  // reload may differ: it is priced at once); null until loaded.
  const [priced, setPriced] = useState<string | null>(null);
  useEffect(() => {
    if (checkout && priced === null) {
      setPriced(taxPlaceKey(taxPlaceOf(checkout, initialValues(checkout))));
    }
  }, [checkout, priced]);
  const place = checkout && values ? taxPlaceOf(checkout, values) : null;
  const key = place && taxPlaceKey(place);
  const pending = priced !== null && key !== null && key !== priced;

  // The timer sends the place as it is when it fires (the address's other parts included).
  const latest = useRef(place);
  latest.current = place;

  useEffect(() => {
    if (!pending || !open || phase !== 'editing' || key === null) return;
    const timer = setTimeout(async () => {
      const update = latest.current;
      if (!update) return;
      setPriced(key);
      setPhase('saving');
      try {
        const next = await updateCheckout(clientSecret, update);
        setErrors(withoutPlaceErrors);
        received(next);
      } catch (error) {
        if (error instanceof CheckoutApiError && error.issues.length > 0) {
          const found = fieldErrorsOf(error.issues);
          setErrors((current) => ({ ...withoutPlaceErrors(current), ...found }));
        } else {
          refused(error);
        }
      } finally {
        setPhase('editing');
      }
    }, repriceDelayMs);
    return () => clearTimeout(timer);
  }, [pending, open, phase, key, clientSecret, setPhase, setErrors, received, refused]);

  return pending;
}
