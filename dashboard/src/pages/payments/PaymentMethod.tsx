import type { Payment } from './api';

/**
 * How a payment was made: `Visa •••• 4242` (heard as "Visa ending 4242") once Stripe said which
 * card paid, else the method's name.
 */
export function PaymentMethod({ payment }: { payment: Payment }) {
  const card = payment.method_metadata;
  if (!card) return <>{payment.method.replaceAll('_', ' ')}</>;
  const brand = String(card.brand);
  return (
    <>
      {brand.charAt(0).toUpperCase() + brand.slice(1)} <span aria-hidden="true">••••</span>
      <span className="visually-hidden">ending</span> {String(card.last4)}
    </>
  );
}
