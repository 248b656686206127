import type { CheckoutForm, Phase } from './form';
import { type ConfirmationTokenSource, StripeCard, TestPaymentMethods } from './payment';
import { submitLabel } from './prices';

interface PaymentSectionProps {
  form: CheckoutForm;
  phase: Phase;
  slowPayment: boolean;
  /** The total is being priced for the buyer's new place: the button waits for it. */
  repricing: boolean;
  stripePublishableKey: string | null;
  onTokenSource: (source: ConfirmationTokenSource) => void;
}

/** The card (when the checkout takes one), the pay button, and how the payment is going. */
export function PaymentSection({
  form,
  phase,
  slowPayment,
  repricing,
  stripePublishableKey,
  onTokenSource,
}: PaymentSectionProps) {
  const { checkout, values, errors } = form;
  return (
    <>
      {checkout.is_payment_form_required &&
        (stripePublishableKey ? (
          <StripeCard
            publishableKey={stripePublishableKey}
            // Stripe's payment Elements want an amount above zero: a card only saved for later
            // (a trial, a balance that pays it all) is shown the plan's total.
            amount={checkout.amount_due > 0 ? checkout.amount_due : checkout.total_amount}
            currency={checkout.currency}
            error={errors.confirmation_token_id}
            onReady={onTokenSource}
          />
        ) : (
          <TestPaymentMethods
            value={values.paymentMethod}
            onChange={(paymentMethod) => {
              form.set({ paymentMethod });
              form.setErrors((current) => {
                const { confirmation_token_id: _, ...rest } = current;
                return rest;
              });
            }}
            error={errors.confirmation_token_id}
          />
        ))}

      <button type="submit" className="primary" disabled={form.busy || repricing}>
        {phase === 'processing'
          ? 'Processing payment…'
          : phase === 'confirming'
            ? 'Confirming…'
            : submitLabel(checkout)}
      </button>
      <p className="status" role="status" aria-live="polite">
        {phase !== 'processing'
          ? repricing
            ? 'Updating the total for your address…'
            : ''
          : slowPayment
            ? 'Still waiting for the payment: if your bank asked you to confirm it, please do.'
            : 'Your payment is being processed.'}
      </p>
    </>
  );
}
