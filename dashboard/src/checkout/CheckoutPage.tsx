import { AmountField } from './AmountField';
import type { CheckoutPublic } from './api';
import { BillingAddress } from './BillingAddress';
import { CheckoutSummary } from './CheckoutSummary';
import { type CheckoutNotice, CheckoutUnavailable } from './CheckoutUnavailable';
import { CustomerFields } from './CustomerFields';
import { CustomFields } from './CustomFields';
import { DiscountBox } from './DiscountBox';
import { type CheckoutForm, expiredMessage } from './form';
import { PaymentSection } from './PaymentSection';
import { ProductPicker } from './ProductPicker';
import { SeatsField } from './SeatsField';
import { useCheckoutForm } from './useCheckoutForm';
import { useConfirm } from './useConfirm';

interface CheckoutPageProps {
  clientSecret: string;
  /** What the server said of this checkout with the page: whose it is, where a new one starts. */
  notice: CheckoutNotice | null;
  stripePublishableKey: string | null;
  onSucceeded: (checkout: CheckoutPublic) => void;
}

/** The hosted checkout: product and price, buyer details, discount, custom fields and card. */
export function CheckoutPage({
  clientSecret,
  notice,
  stripePublishableKey,
  onSucceeded,
}: CheckoutPageProps) {
  const state = useCheckoutForm(clientSecret, onSucceeded);
  const { submit, onTokenSource } = useConfirm(state, clientSecret, stripePublishableKey);
  const { checkout, values, phase } = state;

  if (state.closed) {
    return (
      <CheckoutUnavailable
        why={state.closed === expiredMessage ? 'expired' : 'not_found'}
        message={state.closed}
        organizationName={checkout?.organization.name ?? notice?.organizationName ?? null}
        startOverUrl={notice?.startOverUrl ?? null}
      />
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
        <SeatsField form={form} />
        <CustomerFields form={form} />
        <BillingAddress form={form} />
        <CustomFields form={form} />
        <DiscountBox form={form} />
        <PaymentSection
          form={form}
          phase={phase}
          slowPayment={state.slowPayment}
          repricing={state.repricing}
          stripePublishableKey={stripePublishableKey}
          onTokenSource={onTokenSource}
        />
      </form>
    </main>
  );
}
