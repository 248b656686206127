import { AmountField } from './AmountField';
import type { CheckoutPublic } from './api';
import { BillingAddress } from './BillingAddress';
import { CheckoutSummary } from './CheckoutSummary';
import { CustomerFields } from './CustomerFields';
import { CustomFields } from './CustomFields';
import { DiscountBox } from './DiscountBox';
import type { CheckoutForm } from './form';
import { PaymentSection } from './PaymentSection';
import { ProductPicker } from './ProductPicker';
import { useCheckoutForm } from './useCheckoutForm';
import { useConfirm } from './useConfirm';

interface CheckoutPageProps {
  clientSecret: string;
  stripePublishableKey: string | null;
  onSucceeded: (checkout: CheckoutPublic) => void;
}

/** The hosted checkout: product and price, buyer details, discount, custom fields and card. */
export function CheckoutPage({
  clientSecret,
  stripePublishableKey,
  onSucceeded,
}: CheckoutPageProps) {
  const state = useCheckoutForm(clientSecret, onSucceeded);
  const { submit, onTokenSource } = useConfirm(state, clientSecret, stripePublishableKey);
  const { checkout, values, phase } = state;

  if (state.closed) {
    return (
      <main className="checkout-closed">
        <h1>Checkout unavailable</h1>
        <p role="alert">{state.closed}</p>
      </main>
    );
  }
  if (!checkout || !values) {
    return (
      <main className="checkout-loading" aria-busy="true">
        Loading checkout…
      </main>
    );
  }

  const busy = phase !== 'editing';
  const form: CheckoutForm = { ...state, checkout, values, busy };
  return (
    <main className="checkout">
      <CheckoutSummary checkout={checkout} />
      <form
        ref={state.formRef}
        className="checkout-form"
        onSubmit={submit}
        noValidate
        aria-busy={busy}
        aria-labelledby="form-title"
      >
        <h2 id="form-title" className="visually-hidden">
          Your details
        </h2>
        {state.banner && (
          <div className="banner-error" role="alert">
            {state.banner}
          </div>
        )}
        <ProductPicker form={form} />
        <AmountField form={form} />
        <CustomerFields form={form} />
        <BillingAddress form={form} />
        <CustomFields form={form} />
        <DiscountBox form={form} />
        <PaymentSection
          form={form}
          phase={phase}
          slowPayment={state.slowPayment}
          stripePublishableKey={stripePublishableKey}
          onTokenSource={onTokenSource}
        />
      </form>
    </main>
  );
}
