import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { refundCreateInput } from '../../../../commerce/refunds/schemas.ts';
import { refundReasons } from '../../../../domain/refunds.ts';
import { ApiError, type FieldErrors } from '../../api/client';
import { formatMoney, moneyInputText, parseMoneyInput } from '../../checkout/money';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Form';
import { Money } from '../../components/Money';
import type { Order } from '../orders/api';
import { createRefund, type RefundCreate, reasonLabels } from './api';
import '../orders/sales.css';

interface RefundFormProps {
  order: Order;
  /** What is left to refund (pre-tax): the net amount less refunded and pending refunds. */
  refundable: number;
  onDone: () => void;
}

const fields = ['amount', 'reason', 'comment', 'revoke_benefits'];

const leftToRefund = (amount: number, currency: string) =>
  `Only ${formatMoney(amount, currency)} is left to refund on this order.`;

/**
 * A refusal's errors by field of this form, or null. RefundAmountTooHigh is the amount's; its
 * message ends with what is left in minor units (Polar's wording), shown here as money.
 */
function fieldErrorsOf(error: ApiError, currency: string): FieldErrors | null {
  if (error.code === 'RefundAmountTooHigh') {
    const left = /: (\d+)$/.exec(error.message)?.[1];
    return { amount: left ? leftToRefund(Number(left), currency) : error.message };
  }
  const placed = Object.entries(error.fieldErrors).filter(([key]) => fields.includes(key));
  return placed.length > 0 ? Object.fromEntries(placed) : null;
}

/**
 * Refunds an order, all or part of what is left: the values are checked with the API's own
 * schema, confirmed in a dialog, then sent; a refusal about a field (an amount too high) shows
 * next to it, and the values stay as typed.
 */
export function RefundForm({ order, refundable, onDone }: RefundFormProps) {
  const queryClient = useQueryClient();
  const [amountText, setAmountText] = useState(moneyInputText(refundable));
  const [reason, setReason] = useState<RefundCreate['reason']>('customer_request');
  const [comment, setComment] = useState('');
  const [revokeBenefits, setRevokeBenefits] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<RefundCreate | null>(null);
  const oneTime = order.billing_reason === 'purchase';
  // The form opens from the Refund button, which it replaces: the keyboard lands on the amount.
  const amountInput = useRef<HTMLInputElement>(null);
  useEffect(() => amountInput.current?.focus(), []);

  const review = (event: FormEvent) => {
    event.preventDefault();
    const amount = parseMoneyInput(amountText);
    if (amount === null) return setErrors({ amount: 'Enter an amount such as 12.50.' });
    if (amount > refundable) {
      return setErrors({ amount: leftToRefund(refundable, order.currency) });
    }
    const refund: RefundCreate = {
      order_id: order.id,
      reason,
      amount,
      comment: comment.trim() || null,
      revoke_benefits: oneTime && revokeBenefits,
    };
    const checked = refundCreateInput.safeParse(refund);
    if (!checked.success) {
      const issues: FieldErrors = {};
      for (const issue of checked.error.issues) issues[issue.path.join('.')] ??= issue.message;
      return setErrors(issues);
    }
    setErrors({});
    setConfirming(refund);
  };

  const send = async (refund: RefundCreate) => {
    try {
      await createRefund(refund);
    } catch (failure) {
      const placed = failure instanceof ApiError ? fieldErrorsOf(failure, order.currency) : null;
      // A refusal no field claims stays in the dialog, which shows it.
      if (!placed) throw failure;
      setErrors(placed);
      // Another refund may have taken part of the order meanwhile: show what is left now.
      await queryClient.invalidateQueries({ queryKey: ['refunds'] });
      return;
    }
    await queryClient.invalidateQueries({ queryKey: ['refunds'] });
    await queryClient.invalidateQueries({ queryKey: ['order', order.id] });
    onDone();
  };

  return (
    <>
      <form className="form" onSubmit={review} noValidate aria-label="Refund">
        <Field
          name="amount"
          label={`Amount (${order.currency.toUpperCase()}, before tax)`}
          hint={`Up to ${formatMoney(refundable, order.currency)}; its share of the tax goes back with it.`}
          error={errors.amount}
          required
        >
          {(props) => (
            <input
              {...props}
              ref={amountInput}
              inputMode="decimal"
              autoComplete="off"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
            />
          )}
        </Field>
        <Field name="reason" label="Reason" error={errors.reason} required>
          {(props) => (
            <select
              {...props}
              value={reason}
              onChange={(event) => setReason(event.target.value as RefundCreate['reason'])}
            >
              {refundReasons.map((value) => (
                <option key={value} value={value}>
                  {reasonLabels[value]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="comment" label="Comment" error={errors.comment}>
          {(props) => (
            <textarea
              {...props}
              rows={3}
              value={comment}
              onChange={(event) => setComment(event.target.value)}
            />
          )}
        </Field>
        {oneTime && (
          <label className="checkbox-field">
            <input
              type="checkbox"
              checked={revokeBenefits}
              onChange={(event) => setRevokeBenefits(event.target.checked)}
            />{' '}
            Revoke the benefits of this purchase
          </label>
        )}
        {errors.revoke_benefits && (
          <p className="field-error" role="alert">
            {errors.revoke_benefits}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-danger">
            Refund…
          </button>
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming !== null}
        title="Refund this order?"
        confirmLabel="Refund"
        tone="danger"
        onConfirm={() => (confirming ? send(confirming) : Promise.resolve())}
        onClose={() => setConfirming(null)}
      >
        {confirming && (
          <p>
            <Money amount={confirming.amount} currency={order.currency} /> (plus its share of tax)
            goes back to {order.customer.email}'s card for order {order.invoice_number}, reason “
            {reasonLabels[confirming.reason]}”.
            {confirming.revoke_benefits && ' The benefits of this purchase are revoked.'} This
            cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
