import { Fragment } from 'react';
import { reverseChargeNotice, taxLineName, taxLineRate } from '../../../domain/tax.ts';
import type { CheckoutPublic } from './api';
import { formatMoney } from './money';
import { checkoutChargeTerms, intervalText } from './prices';

/**
 * The seller, the product and what it includes, then subtotal, discount, tax and total, the
 * customer's balance it uses and what is left to pay, and for a subscription what it charges
 * over time (trial, discount's end, price after it).
 */
export function CheckoutSummary({ checkout }: { checkout: CheckoutPublic }) {
  const currency = checkout.currency;
  const terms = checkoutChargeTerms(checkout);
  const trialing = checkout.active_trial_interval !== null;
  return (
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
        {checkout.tax_amount !== null && checkout.tax_lines.length === 0 && (
          <>
            <dt>Tax</dt>
            <dd>{formatMoney(checkout.tax_amount, currency)}</dd>
          </>
        )}
        {checkout.tax_lines.map((line) => (
          <Fragment key={`${line.jurisdiction} ${line.display_name}`}>
            <dt>
              {taxLineName({ displayName: line.display_name, jurisdiction: line.jurisdiction })}
              {', '}
              {taxLineRate({ rateBps: line.rate_bps, inclusive: line.inclusive })}
            </dt>
            <dd data-testid="tax-line">{formatMoney(line.tax_amount, currency)}</dd>
          </Fragment>
        ))}
        <dt className="total">Total</dt>
        <dd className="total" data-testid="total-amount">
          {formatMoney(checkout.total_amount, currency)}
          {intervalText(checkout.product_price)}
        </dd>
        {checkout.from_balance_amount > 0 && (
          <>
            <dt>Balance applied</dt>
            <dd data-testid="balance-applied">
              −{formatMoney(checkout.from_balance_amount, currency)}
            </dd>
            <dt>Amount due</dt>
            <dd data-testid="amount-due">{formatMoney(checkout.amount_due, currency)}</dd>
          </>
        )}
        {trialing && (
          <>
            <dt>Due today</dt>
            <dd data-testid="due-today">{formatMoney(0, currency)}</dd>
          </>
        )}
      </dl>
      {checkout.tax_lines.some((line) => line.reverse_charge) && (
        <p className="charge-terms" data-testid="reverse-charge">
          {reverseChargeNotice}
        </p>
      )}
      {terms && (
        <p className="charge-terms" data-testid="charge-terms">
          {terms}
        </p>
      )}
    </section>
  );
}
