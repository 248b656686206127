import type { HostedCheckoutNotice } from '../../../commerce/checkouts/hosted-page.ts';

export type CheckoutNotice = HostedCheckoutNotice;
export type Unavailable = NonNullable<HostedCheckoutNotice['unavailable']>;

const wording: Record<Unavailable, { title: string; message: string }> = {
  expired: { title: 'Checkout expired', message: 'This checkout has expired.' },
  not_found: { title: 'Checkout unavailable', message: 'This checkout does not exist.' },
  link_not_found: {
    title: 'Checkout unavailable',
    message: 'This checkout link no longer works.',
  },
};

interface CheckoutUnavailableProps {
  why: Unavailable;
  /** Said instead of the reason's own words (a refusal's message). */
  message?: string;
  /** The seller's name; null when the address named nothing known. */
  organizationName: string | null;
  /** Where a new checkout starts (the seller's checkout link or website); null: none known. */
  startOverUrl: string | null;
}

/**
 * A checkout that cannot be used (expired, unknown, from a dead link), said in the seller's
 * name, with the way to start a new one.
 */
export function CheckoutUnavailable({
  why,
  message = wording[why].message,
  organizationName,
  startOverUrl,
}: CheckoutUnavailableProps) {
  const { title } = wording[why];
  const seller = organizationName ?? 'the seller';
  return (
    <main className="checkout-closed">
      {organizationName && <p className="organization">{organizationName}</p>}
      <h1>{title}</h1>
      <p role="alert">{message}</p>
      {startOverUrl ? (
        <a className="button-link" href={startOverUrl}>
          Start a new checkout
        </a>
      ) : (
        <p>
          To start a new checkout, go back to {seller}’s website or to the link that brought you
          here.
        </p>
      )}
    </main>
  );
}
