import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import {
  type AddressField,
  type AttachedCustomField,
  type BillingAddressFieldMode,
  CheckoutApiError,
  type CheckoutPublic,
  type CheckoutUpdate,
  type CustomFieldValue,
  confirmCheckout,
  getCheckout,
  type Price,
  updateCheckout,
} from './api';
import { countries } from './countries';
import { Field, type FieldErrors, fieldErrorsOf, inputId } from './fields';
import { formatMoney, moneyInputText, parseMoneyInput } from './money';
import {
  type ConfirmationTokenSource,
  StripeCard,
  TestPaymentMethods,
  testPaymentMethods,
} from './payment';
import { rememberSessionToken } from './session';

interface FormValues {
  email: string;
  name: string;
  isBusiness: boolean;
  billingName: string;
  taxId: string;
  address: Record<AddressField, string>;
  discountCode: string;
  amountText: string;
  customFields: Record<string, CustomFieldValue>;
  paymentMethod: string;
}

const addressFields: { key: AddressField; label: string; autoComplete: string }[] = [
  { key: 'line1', label: 'Address', autoComplete: 'address-line1' },
  { key: 'line2', label: 'Address line 2', autoComplete: 'address-line2' },
  { key: 'postal_code', label: 'Postal code', autoComplete: 'postal-code' },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'state', label: 'State / province', autoComplete: 'address-level1' },
];

function initialValues(checkout: CheckoutPublic): FormValues {
  const address = checkout.customer_billing_address;
  const price = checkout.product_price;
  return {
    email: checkout.customer_email ?? '',
    name: checkout.customer_name ?? '',
    isBusiness: checkout.is_business_customer,
    billingName: checkout.customer_billing_name ?? '',
    taxId: checkout.customer_tax_id ?? '',
    address: {
      country: address?.country ?? '',
      line1: address?.line1 ?? '',
      line2: address?.line2 ?? '',
      postal_code: address?.postal_code ?? '',
      city: address?.city ?? '',
      state: address?.state?.replace(/^[A-Z]{2}-/, '') ?? '',
    },
    discountCode: checkout.discount?.code ?? '',
    amountText: price.amount_type === 'custom' ? moneyInputText(checkout.amount) : '',
    customFields: { ...checkout.custom_field_data },
    paymentMethod: testPaymentMethods[0].id,
  };
}

/**
 * Which address fields to ask for: the server's answer for the country it holds; for another
 * country chosen since, the same rules (a full address for the US, for businesses or when the
 * seller requires it; a state for Canada; else the country alone).
 */
function addressModes(
  checkout: CheckoutPublic & { require_billing_address?: boolean },
  country: string,
): Record<AddressField, BillingAddressFieldMode> {
  const server = checkout.billing_address_fields;
  if (server.country === 'disabled') return server;
  if (country === (checkout.customer_billing_address?.country ?? '')) return server;
  const full =
    Boolean(checkout.require_billing_address) || checkout.is_business_customer || country === 'US';
  const asked = full ? 'required' : 'disabled';
  return {
    country: 'required',
    line1: asked,
    line2: full ? 'optional' : 'disabled',
    postal_code: asked,
    city: asked,
    state: full || country === 'CA' ? 'required' : 'disabled',
  };
}

const staticPrices = (prices: Price[]) =>
  prices.filter(
    (price) =>
      !price.is_archived &&
      (price.amount_type === 'fixed' ||
        price.amount_type === 'custom' ||
        price.amount_type === 'free'),
  );

function intervalText(price: Price) {
  return price.type === 'recurring' && price.recurring_interval
    ? ` / ${price.recurring_interval}`
    : '';
}

function priceText(price: Price): string {
  switch (price.amount_type) {
    case 'fixed':
      return `${formatMoney(price.price_amount, price.price_currency)}${intervalText(price)}`;
    case 'custom':
      return 'Pay what you want';
    case 'free':
      return 'Free';
    default:
      return 'Usage-based';
  }
}

/** The buyer's value of a custom field as the API takes it (numbers as integers). */
function customFieldInput(field: AttachedCustomField, text: string): CustomFieldValue {
  if (text === '') return null;
  if (field.custom_field.type === 'number') {
    const number = Number(text);
    return Number.isInteger(number) ? number : text;
  }
  return text;
}

type Phase = 'editing' | 'saving' | 'confirming' | 'processing';

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
  const [checkout, setCheckout] = useState<CheckoutPublic | null>(null);
  const [values, setValues] = useState<FormValues | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [closed, setClosed] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('editing');
  // A payment undecided for long is waiting on the bank (3-D Secure): the buyer is told.
  const [slowPayment, setSlowPayment] = useState(false);
  // The product or price just picked, shown at once while the server prices it.
  const [picking, setPicking] = useState<{ productId?: string; priceId?: string }>({});
  const tokenSource = useRef<ConfirmationTokenSource | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // Stripe Elements hands over how to make a confirmation token once it is mounted.
  const onTokenSource = useCallback((source: ConfirmationTokenSource) => {
    tokenSource.current = source;
  }, []);

  const received = useCallback(
    (next: CheckoutPublic) => {
      setCheckout(next);
      if (next.status === 'succeeded') onSucceeded(next);
      if (next.status === 'expired') setClosed('This checkout has expired.');
    },
    [onSucceeded],
  );

  useEffect(() => {
    getCheckout(clientSecret)
      .then((loaded) => {
        setValues(initialValues(loaded));
        received(loaded);
        if (loaded.status === 'failed' && loaded.payment_error) {
          setErrors({ confirmation_token_id: loaded.payment_error.message });
        }
        if (loaded.status === 'confirmed') setPhase('processing');
      })
      .catch((error: CheckoutApiError) => {
        setClosed(
          error.status === 410
            ? 'This checkout has expired.'
            : error.status === 404
              ? 'This checkout does not exist.'
              : error.message,
        );
      });
  }, [clientSecret, received]);

  /** Shows a refusal next to the fields it names, or above the form. */
  const refused = useCallback((error: unknown) => {
    if (!(error instanceof CheckoutApiError)) {
      setBanner('The connection failed. Check your network and try again.');
      return;
    }
    if (error.status === 410) {
      setClosed('This checkout has expired.');
      return;
    }
    if (error.error === 'PaymentError') {
      setErrors({ confirmation_token_id: error.message });
      return;
    }
    if (error.issues.length > 0) {
      const found = fieldErrorsOf(error.issues);
      setErrors(found);
      // Focus the first field that was refused, so keyboard users land on it.
      requestAnimationFrame(() => {
        const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
        first?.focus();
      });
      const shown = Object.keys(found).some((key) => document.getElementById(inputId(key)));
      if (!shown) setBanner(error.issues.map((issue) => issue.msg).join(' '));
      return;
    }
    setBanner(error.message);
  }, []);

  /** A change the server must price (product, price, amount, discount, business): sent now. */
  async function save(update: CheckoutUpdate, clears: string[]) {
    setPhase('saving');
    setBanner(null);
    try {
      const next = await updateCheckout(clientSecret, update);
      setErrors((current) => {
        const kept = { ...current };
        for (const key of clears) delete kept[key];
        return kept;
      });
      received(next);
      return next;
    } catch (error) {
      refused(error);
      return null;
    } finally {
      setPhase('editing');
    }
  }

  // While the payment is decided, the checkout is read again each second.
  useEffect(() => {
    if (phase !== 'processing') return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const slow = setTimeout(() => setSlowPayment(true), 15_000);
    const poll = async () => {
      try {
        const next = await getCheckout(clientSecret);
        if (stopped) return;
        received(next);
        if (next.status === 'failed') {
          setErrors({
            confirmation_token_id: next.payment_error?.message ?? 'The payment failed.',
          });
          setPhase('editing');
          return;
        }
        if (next.status !== 'confirmed') return;
      } catch (error) {
        if (stopped) return;
        if (error instanceof CheckoutApiError && error.status === 410) {
          setClosed('This checkout has expired.');
          return;
        }
      }
      timer = setTimeout(poll, 1000);
    };
    timer = setTimeout(poll, 500);
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(slow);
      setSlowPayment(false);
    };
  }, [phase, clientSecret, received]);

  if (closed) {
    return (
      <main className="checkout-closed">
        <h1>Checkout unavailable</h1>
        <p role="alert">{closed}</p>
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

  const set = (change: Partial<FormValues>) =>
    setValues((current) => current && { ...current, ...change });
  const setAddress = (key: AddressField, value: string) =>
    setValues(
      (current) => current && { ...current, address: { ...current.address, [key]: value } },
    );
  /** Another product or price picked: priced by the server, a custom amount starts at its answer. */
  async function pick(choice: { productId?: string; priceId?: string }) {
    setPicking(choice);
    const next = await save(
      choice.productId ? { product_id: choice.productId } : { product_price_id: choice.priceId },
      ['product_id', 'product_price_id', 'amount'],
    );
    setPicking({});
    if (next?.product_price.amount_type === 'custom')
      set({ amountText: moneyInputText(next.amount) });
  }
  const busy = phase !== 'editing';
  const currency = checkout.currency;
  const price = checkout.product_price;
  const prices = staticPrices(checkout.product.prices);
  const modes = addressModes(checkout, values.address.country);
  const customFields = [...checkout.attached_custom_fields].sort((a, b) => a.order - b.order);

  async function commitAmount() {
    if (!values || !checkout || price.amount_type !== 'custom') return;
    const amount = parseMoneyInput(values.amountText);
    if (amount === null) {
      setErrors({ ...errors, amount: 'Enter an amount, e.g. 12.50.' });
      return;
    }
    if (amount !== checkout.amount) await save({ amount }, ['amount']);
  }

  async function applyDiscount() {
    if (!values) return;
    const code = values.discountCode.trim();
    if (!code) {
      setErrors({ ...errors, discount_code: 'Enter a discount code.' });
      return;
    }
    await save({ discount_code: code }, ['discount_code']);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!values || !checkout || busy) return;
    setBanner(null);
    const amount = price.amount_type === 'custom' ? parseMoneyInput(values.amountText) : null;
    if (price.amount_type === 'custom' && amount === null) {
      setErrors({ amount: 'Enter an amount, e.g. 12.50.' });
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
    const address =
      modes.country === 'disabled' || !values.address.country
        ? null
        : Object.fromEntries(
            (Object.keys(modes) as AddressField[])
              .filter((key) => modes[key] !== 'disabled')
              .map((key) => [key, values.address[key].trim() || null]),
          );
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
        ...(customFields.length > 0 && { custom_field_data: values.customFields }),
        confirmation_token_id: confirmationToken,
      });
      // Empty for a customer matched by the email typed: their portal is reached from a mailed link.
      if (confirmed.customer_session_token) {
        rememberSessionToken(clientSecret, confirmed.customer_session_token);
      }
      setErrors({});
      received(confirmed);
      setPhase('processing');
    } catch (error) {
      refused(error);
      setPhase('editing');
    }
  }

  const submitLabel = checkout.is_payment_required
    ? `Pay ${formatMoney(checkout.total_amount, currency)}`
    : checkout.is_payment_form_required
      ? 'Start subscription'
      : 'Get it for free';

  return (
    <main className="checkout">
      <section className="checkout-summary" aria-labelledby="summary-title">
        <p className="organization">{checkout.organization.name}</p>
        <h1 id="summary-title">{checkout.product.name}</h1>
        {checkout.product.description && <p>{checkout.product.description}</p>}
        {checkout.product.benefits.length > 0 && (
          <>
            <h2>Included</h2>
            <ul className="benefits">
              {checkout.product.benefits.map((benefit) => (
                <li key={benefit.id}>{benefit.description}</li>
              ))}
            </ul>
          </>
        )}
        <dl className="amounts" aria-live="polite">
          <dt>Subtotal</dt>
          <dd data-testid="amount">{formatMoney(checkout.amount, currency)}</dd>
          {checkout.discount && (
            <>
              <dt>Discount ({checkout.discount.name})</dt>
              <dd data-testid="discount-amount">
                −{formatMoney(checkout.discount_amount, currency)}
              </dd>
            </>
          )}
          {checkout.tax_amount !== null && (
            <>
              <dt>Tax</dt>
              <dd>{formatMoney(checkout.tax_amount, currency)}</dd>
            </>
          )}
          <dt className="total">Total</dt>
          <dd className="total" data-testid="total-amount">
            {formatMoney(checkout.total_amount, currency)}
            {intervalText(price)}
          </dd>
        </dl>
      </section>

      <form
        ref={formRef}
        className="checkout-form"
        onSubmit={submit}
        noValidate
        aria-busy={busy}
        aria-labelledby="form-title"
      >
        <h2 id="form-title" className="visually-hidden">
          Your details
        </h2>
        {banner && (
          <div className="banner-error" role="alert">
            {banner}
          </div>
        )}

        {checkout.products.length > 1 && (
          <fieldset>
            <legend>Product</legend>
            {checkout.products.map((product) => (
              <label key={product.id} className="choice">
                <input
                  type="radio"
                  name="product"
                  value={product.id}
                  checked={(picking.productId ?? checkout.product_id) === product.id}
                  disabled={busy}
                  onChange={() => pick({ productId: product.id })}
                />
                <span>
                  {product.name}
                  <span className="muted">
                    {' '}
                    — {staticPrices(product.prices).map(priceText).join(' or ')}
                  </span>
                </span>
              </label>
            ))}
          </fieldset>
        )}

        {prices.length > 1 && (
          <fieldset>
            <legend>Price</legend>
            {prices.map((option) => (
              <label key={option.id} className="choice">
                <input
                  type="radio"
                  name="price"
                  value={option.id}
                  checked={(picking.priceId ?? checkout.product_price_id) === option.id}
                  disabled={busy}
                  onChange={() => pick({ priceId: option.id })}
                />
                <span>{priceText(option)}</span>
              </label>
            ))}
          </fieldset>
        )}

        {price.amount_type === 'custom' && (
          <Field
            name="amount"
            label={`Amount (${currency.toUpperCase()})`}
            required
            error={errors.amount}
            hint={[
              price.minimum_amount !== null &&
                `At least ${formatMoney(price.minimum_amount, currency)}`,
              price.maximum_amount !== null &&
                `at most ${formatMoney(price.maximum_amount, currency)}`,
            ]
              .filter(Boolean)
              .join(', ')}
          >
            {(props) => (
              <input
                {...props}
                inputMode="decimal"
                value={values.amountText}
                onChange={(event) => set({ amountText: event.target.value })}
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
        )}

        <Field name="customer_email" label="Email" required error={errors.customer_email}>
          {(props) => (
            <input
              {...props}
              type="email"
              autoComplete="email"
              value={values.email}
              onChange={(event) => set({ email: event.target.value })}
            />
          )}
        </Field>

        <Field
          name="customer_name"
          label="Name"
          required={checkout.is_payment_form_required}
          error={errors.customer_name}
        >
          {(props) => (
            <input
              {...props}
              autoComplete="name"
              value={values.name}
              onChange={(event) => set({ name: event.target.value })}
            />
          )}
        </Field>

        <label className="choice">
          <input
            type="checkbox"
            checked={values.isBusiness}
            disabled={busy}
            onChange={async (event) => {
              const isBusiness = event.target.checked;
              set({ isBusiness });
              await save({ is_business_customer: isBusiness }, ['is_business_customer']);
            }}
          />
          <span>I’m purchasing as a business</span>
        </label>

        {values.isBusiness && (
          <>
            <Field
              name="customer_billing_name"
              label="Business name"
              required
              error={errors.customer_billing_name}
            >
              {(props) => (
                <input
                  {...props}
                  autoComplete="organization"
                  value={values.billingName}
                  onChange={(event) => set({ billingName: event.target.value })}
                />
              )}
            </Field>
            <Field name="customer_tax_id" label="Tax ID" error={errors.customer_tax_id}>
              {(props) => (
                <input
                  {...props}
                  value={values.taxId}
                  onChange={(event) => set({ taxId: event.target.value })}
                />
              )}
            </Field>
          </>
        )}

        {modes.country !== 'disabled' && (
          <fieldset>
            <legend>Billing address</legend>
            <Field
              name="customer_billing_address.country"
              label="Country"
              required
              error={errors['customer_billing_address.country'] ?? errors.customer_billing_address}
            >
              {(props) => (
                <select
                  {...props}
                  autoComplete="country"
                  value={values.address.country}
                  onChange={(event) => setAddress('country', event.target.value)}
                >
                  <option value="">Choose a country</option>
                  {countries.map((country) => (
                    <option key={country.code} value={country.code}>
                      {country.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {addressFields
              .filter(({ key }) => modes[key] !== 'disabled')
              .map(({ key, label, autoComplete }) => (
                <Field
                  key={key}
                  name={`customer_billing_address.${key}`}
                  label={label}
                  required={modes[key] === 'required'}
                  error={errors[`customer_billing_address.${key}`]}
                >
                  {(props) => (
                    <input
                      {...props}
                      autoComplete={autoComplete}
                      value={values.address[key]}
                      onChange={(event) => setAddress(key, event.target.value)}
                    />
                  )}
                </Field>
              ))}
          </fieldset>
        )}

        {customFields.map((attached) => (
          <CustomFieldInput
            key={attached.custom_field_id}
            attached={attached}
            value={values.customFields[attached.custom_field.slug] ?? null}
            error={errors[`custom_field_data.${attached.custom_field.slug}`]}
            onChange={(value) =>
              setValues(
                (current) =>
                  current && {
                    ...current,
                    customFields: { ...current.customFields, [attached.custom_field.slug]: value },
                  },
              )
            }
          />
        ))}

        {checkout.allow_discount_codes && checkout.is_discount_applicable && (
          <div className="discount">
            <Field name="discount_code" label="Discount code" error={errors.discount_code}>
              {(props) => (
                <input
                  {...props}
                  value={values.discountCode}
                  readOnly={Boolean(checkout.discount)}
                  onChange={(event) => set({ discountCode: event.target.value })}
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
                  if (await save({ discount_code: null }, ['discount_code'])) {
                    set({ discountCode: '' });
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
        )}

        {checkout.is_payment_form_required &&
          (stripePublishableKey ? (
            <StripeCard
              publishableKey={stripePublishableKey}
              amount={checkout.total_amount}
              currency={currency}
              error={errors.confirmation_token_id}
              onReady={onTokenSource}
            />
          ) : (
            <TestPaymentMethods
              value={values.paymentMethod}
              onChange={(paymentMethod) => {
                set({ paymentMethod });
                setErrors((current) => {
                  const { confirmation_token_id: _, ...rest } = current;
                  return rest;
                });
              }}
              error={errors.confirmation_token_id}
            />
          ))}

        <button type="submit" className="primary" disabled={busy}>
          {phase === 'processing'
            ? 'Processing payment…'
            : phase === 'confirming'
              ? 'Confirming…'
              : submitLabel}
        </button>
        <p className="status" role="status" aria-live="polite">
          {phase !== 'processing'
            ? ''
            : slowPayment
              ? 'Still waiting for the payment: if your bank asked you to confirm it, please do.'
              : 'Your payment is being processed.'}
        </p>
      </form>
    </main>
  );
}

interface CustomFieldInputProps {
  attached: AttachedCustomField;
  value: CustomFieldValue;
  error: string | undefined;
  onChange: (value: CustomFieldValue) => void;
}

/** One of the seller's custom fields, by its type. */
function CustomFieldInput({ attached, value, error, onChange }: CustomFieldInputProps) {
  const field = attached.custom_field;
  const { properties } = field;
  const name = `custom_field_data.${field.slug}`;
  const label = properties.form_label ?? field.name;
  if (field.type === 'checkbox') {
    const id = inputId(name);
    return (
      <div className={`field${error ? ' field-invalid' : ''}`}>
        <label className="choice" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            aria-invalid={Boolean(error)}
            aria-required={attached.required}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(event) => onChange(event.target.checked)}
          />
          <span>{label}</span>
        </label>
        {properties.form_help_text && <p className="field-hint">{properties.form_help_text}</p>}
        {error && (
          <p className="field-error" id={`${id}-error`} role="alert">
            {error}
          </p>
        )}
      </div>
    );
  }
  const text = value === null || value === undefined ? '' : String(value);
  return (
    <Field
      name={name}
      label={label}
      required={attached.required}
      error={error}
      hint={properties.form_help_text}
    >
      {(props) =>
        field.type === 'select' ? (
          <select
            {...props}
            value={text}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          >
            <option value="">{properties.form_placeholder ?? 'Choose…'}</option>
            {(properties.options ?? []).map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        ) : field.type === 'text' && properties.textarea ? (
          <textarea
            {...props}
            value={text}
            placeholder={properties.form_placeholder}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          />
        ) : (
          <input
            {...props}
            type={field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text'}
            value={text}
            placeholder={properties.form_placeholder}
            min={field.type === 'number' ? properties.ge : undefined}
            max={field.type === 'number' ? properties.le : undefined}
            onChange={(event) => onChange(customFieldInput(attached, event.target.value))}
          />
        )
      }
    </Field>
  );
}
