import { Field } from './fields';
import { amountMissing, type CheckoutForm } from './form';
import { formatMoney, parseMoneyInput } from './money';

/** A pay-what-you-want price's amount, within its bounds: priced by the server once typed. */
export function AmountField({ form }: { form: CheckoutForm }) {
  const { checkout, values, errors } = form;
  const price = checkout.product_price;
  if (price.amount_type !== 'custom') return null;
  const currency = checkout.currency;

  async function commitAmount() {
    const amount = parseMoneyInput(values.amountText);
    if (amount === null) {
      form.setErrors({ ...errors, amount: amountMissing });
      return;
    }
    if (amount !== checkout.amount) await form.save({ amount }, ['amount']);
  }

  return (
    <Field
      name="amount"
      label={`Amount (${currency.toUpperCase()})`}
      required
      error={errors.amount}
      hint={[
        price.minimum_amount !== null && `At least ${formatMoney(price.minimum_amount, currency)}`,
        price.maximum_amount !== null && `at most ${formatMoney(price.maximum_amount, currency)}`,
      ]
        .filter(Boolean)
        .join(', ')}
    >
      {(props) => (
        <input
          {...props}
          inputMode="decimal"
          value={values.amountText}
          onChange={(event) => form.set({ amountText: event.target.value })}
          onBlur={commitAmount}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void commitAmount();
            }
          }}
        />
      )}
    </Field>
  );
}
