import { Field } from './fields';
import type { CheckoutForm } from './form';

/** A discount code, applied or removed at once (when the seller allows codes). */
export function DiscountBox({ form }: { form: CheckoutForm }) {
  const { checkout, values, errors, busy } = form;
  if (!checkout.allow_discount_codes || !checkout.is_discount_applicable) return null;

  async function applyDiscount() {
    const code = values.discountCode.trim();
    if (!code) {
      form.setErrors({ ...errors, discount_code: 'Enter a discount code.' });
      return;
    }
    await form.save({ discount_code: code }, ['discount_code']);
  }

  return (
    <div className="discount">
      <Field name="discount_code" label="Discount code" error={errors.discount_code}>
        {(props) => (
          <input
            {...props}
            value={values.discountCode}
            readOnly={Boolean(checkout.discount)}
            onChange={(event) => form.set({ discountCode: event.target.value })}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void applyDiscount();
              }
            }}
          />
        )}
      </Field>
      {checkout.discount ? (
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={async () => {
            if (await form.save({ discount_code: null }, ['discount_code'])) {
              form.set({ discountCode: '' });
            }
          }}
        >
          Remove
        </button>
      ) : (
        <button type="button" className="secondary" disabled={busy} onClick={applyDiscount}>
          Apply
        </button>
      )}
    </div>
  );
}
