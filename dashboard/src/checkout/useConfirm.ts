import { type FormEvent, useCallback, useRef } from 'react';
import { billingAddressOf } from './address';
import { type CheckoutUpdate, confirmCheckout } from './api';
import { amountMissing } from './form';
import { parseMoneyInput } from './money';
import type { ConfirmationTokenSource } from './payment';
import { rememberSessionToken } from './session';
import type { CheckoutState } from './useCheckoutForm';

/**
 * The form's submission: the card's confirmation token (from Stripe Elements, or the test card
 * picked), then the buyer's details confirmed; the payment is then awaited (`processing`).
 */
export function useConfirm(
  state: CheckoutState,
  clientSecret: string,
  stripePublishableKey: string | null,
) {
  const tokenSource = useRef<ConfirmationTokenSource | null>(null);
  // Stripe Elements hands over how to make a confirmation token once it is mounted.
  const onTokenSource = useCallback((source: ConfirmationTokenSource) => {
    tokenSource.current = source;
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { checkout, values, setErrors, setPhase } = state;
    // Never pay a total not yet priced for the place typed (Enter pressed in a field).
    if (!values || !checkout || state.phase !== 'editing' || state.repricing) return;
    state.setBanner(null);
    const price = checkout.product_price;
    const amount = price.amount_type === 'custom' ? parseMoneyInput(values.amountText) : null;
    if (price.amount_type === 'custom' && amount === null) {
      setErrors({ amount: amountMissing });
      state.focusErrors();
      return;
    }
    setPhase('confirming');
    let confirmationToken: string | null = null;
    if (checkout.is_payment_form_required) {
      if (stripePublishableKey) {
        try {
          confirmationToken = (await tokenSource.current?.()) ?? null;
        } catch (cause) {
          setErrors({ confirmation_token_id: (cause as Error).message });
          setPhase('editing');
          return;
        }
      } else {
        confirmationToken = values.paymentMethod;
      }
    }
    const address = billingAddressOf(checkout, values.address);
    try {
      const confirmed = await confirmCheckout(clientSecret, {
        customer_email: values.email.trim() || null,
        customer_name: values.name.trim() || null,
        is_business_customer: values.isBusiness,
        ...(values.isBusiness && {
          customer_billing_name: values.billingName.trim() || null,
          customer_tax_id: values.taxId.trim() || null,
        }),
        ...(checkout.is_payment_form_required || address
          ? { customer_billing_address: address as CheckoutUpdate['customer_billing_address'] }
          : {}),
        ...(amount !== null && amount !== checkout.amount && { amount }),
        ...(checkout.attached_custom_fields.length > 0 && {
          custom_field_data: values.customFields,
        }),
        confirmation_token_id: confirmationToken,
      });
      // Empty for a customer matched by the email typed: their portal is reached from a mailed link.
      if (confirmed.customer_session_token) {
        rememberSessionToken(clientSecret, confirmed.customer_session_token);
      }
      setErrors({});
      state.received(confirmed);
      setPhase('processing');
    } catch (error) {
      state.refused(error);
      setPhase('editing');
    }
  }

  return { submit, onTokenSource };
}
