import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, type FieldErrors } from '../../api/client';
import { parseMoneyInput } from '../../checkout/money';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Field } from '../../components/Form';
import { Money } from '../../components/Money';
import { Link } from '../../router';
import { membersApi, membersKey } from '../organization/api';
import {
  adjustBalance,
  type BalanceAdjustment,
  type CustomerState,
  fetchBalanceEntries,
} from './api';

const kindLabels: Record<string, string> = {
  renewal_credit: 'Renewal credit',
  proration_credit: 'Plan change credit',
  seller_adjustment: 'Adjustment',
  order_debit: 'Used by an order',
  refund: 'Refund',
};

/**
 * The customer's balance (credit it has to spend on its next orders) and the ledger it sums,
 * newest first, with "Add credit": an amount and the reason, which the entry keeps with who
 * added it (shown by name; the user id once they left the organization).
 */
export function CustomerBalanceSection({ state }: { state: CustomerState }) {
  const [adding, setAdding] = useState(false);
  const entries = useQuery({
    queryKey: ['customer', state.id, 'balance'],
    queryFn: ({ signal }) => fetchBalanceEntries(state.id, signal),
  });
  const members = useQuery({
    queryKey: [...membersKey, 'all'],
    queryFn: ({ signal }) => membersApi.all(signal),
  });
  const byUser = new Map(members.data?.map((member) => [member.userId, member.user]));
  const author = (userId: string | null) =>
    userId === null ? '—' : (byUser.get(userId)?.name ?? userId);
  const { balance, currency } = state.balance;
  return (
    <Section
      title="Balance"
      actions={
        !adding && (
          <button type="button" className="button" onClick={() => setAdding(true)}>
            Add credit
          </button>
        )
      }
    >
      <p>
        <Money amount={balance} currency={currency} />{' '}
        <span className="muted">
          {balance >= 0 ? 'credit, used by the next orders before the card' : 'owed'}
        </span>
      </p>
      {adding && (
        <AddCreditForm customerId={state.id} currency={currency} onDone={() => setAdding(false)} />
      )}
      {entries.isError && <ErrorMessage title="Could not load the balance" error={entries.error} />}
      {entries.data && entries.data.items.length === 0 && (
        <p className="muted">No balance entries.</p>
      )}
      {entries.data && entries.data.items.length > 0 && (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Balance entries</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Kind</th>
                <th scope="col">Reason</th>
                <th scope="col">By</th>
                <th scope="col" className="col-amount">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.data.items.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <DateTime value={entry.created_at} />
                  </td>
                  <td>{kindLabels[entry.kind] ?? entry.kind}</td>
                  <td>
                    {entry.reason}
                    {entry.order_id && (
                      <>
                        {' '}
                        <Link to={`/orders/${entry.order_id}`}>Order</Link>
                      </>
                    )}
                  </td>
                  <td>{author(entry.created_by_user_id)}</td>
                  <td className="col-amount">
                    <Money amount={entry.amount} currency={entry.currency} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

interface AddCreditFormProps {
  customerId: string;
  currency: string;
  onDone: () => void;
}

/** The credit to add, checked here as the API would, confirmed in a dialog, then sent. */
function AddCreditForm({ customerId, currency, onDone }: AddCreditFormProps) {
  const queryClient = useQueryClient();
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<BalanceAdjustment | null>(null);

  const review = (event: FormEvent) => {
    event.preventDefault();
    const amount = parseMoneyInput(amountText);
    const issues: FieldErrors = {};
    if (!amount) issues.amount = 'Enter an amount above zero, such as 12.50.';
    if (!reason.trim()) issues.reason = 'Say why: the entry keeps it.';
    setErrors(issues);
    if (amount && reason.trim()) setConfirming({ amount, currency, reason: reason.trim() });
  };

  const send = async (adjustment: BalanceAdjustment) => {
    try {
      await adjustBalance(customerId, adjustment);
    } catch (failure) {
      if (!(failure instanceof ApiError) || Object.keys(failure.fieldErrors).length === 0) {
        throw failure;
      }
      setErrors(failure.fieldErrors);
      return;
    }
    await queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
    onDone();
  };

  return (
    <>
      <form className="form" onSubmit={review} noValidate aria-label="Add credit">
        <Field
          name="amount"
          label={`Amount (${currency.toUpperCase()})`}
          error={errors.amount}
          required
        >
          {(props) => (
            <input
              {...props}
              inputMode="decimal"
              autoComplete="off"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
            />
          )}
        </Field>
        <Field name="reason" label="Reason" error={errors.reason} required>
          {(props) => (
            <textarea
              {...props}
              rows={2}
              maxLength={500}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button button-primary">
            Add credit…
          </button>
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming !== null}
        title="Add credit?"
        confirmLabel="Add credit"
        onConfirm={() => (confirming ? send(confirming) : Promise.resolve())}
        onClose={() => setConfirming(null)}
      >
        {confirming && (
          <p>
            <Money amount={confirming.amount} currency={currency} /> is added to the customer’s
            balance, reason “{confirming.reason}”. Their next orders use it before their card.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
