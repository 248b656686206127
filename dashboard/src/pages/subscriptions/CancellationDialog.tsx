import { type ReactNode, useState } from 'react';
import { z } from 'zod';
import { cancellationFields, cancellationReasons } from '../../../../domain/subscriptions.ts';
import { ApiError, type FieldErrors } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Form';
import { type Cancellation, reasonLabels } from './api';

/** The API's own rules for the reason and comment (domain/subscriptions.ts). */
const cancellationInput = z.object(cancellationFields);

interface CancellationDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in words. */
  description: ReactNode;
  confirmLabel: string;
  send: (cancellation: Cancellation) => Promise<unknown>;
  onClose: () => void;
}

/**
 * Confirms a cancellation or a revocation, asking why: the reason and comment are checked with
 * the API's rules, their errors shown beside them, and kept when the request fails.
 */
export function CancellationDialog({
  open,
  title,
  description,
  confirmLabel,
  send,
  onClose,
}: CancellationDialogProps) {
  const [reason, setReason] = useState('');
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  const confirm = async () => {
    const cancellation = {
      customer_cancellation_reason: (reason ||
        null) as Cancellation['customer_cancellation_reason'],
      customer_cancellation_comment: comment.trim() || null,
    };
    const checked = cancellationInput.safeParse(cancellation);
    if (!checked.success) {
      const issues: FieldErrors = {};
      for (const issue of checked.error.issues) issues[issue.path.join('.')] ??= issue.message;
      setErrors(issues);
      throw new Error('Check the fields above.');
    }
    setErrors({});
    try {
      await send(cancellation);
    } catch (failure) {
      if (failure instanceof ApiError) setErrors(failure.fieldErrors);
      throw failure;
    }
  };

  return (
    <ConfirmDialog
      open={open}
      title={title}
      confirmLabel={confirmLabel}
      tone="danger"
      onConfirm={confirm}
      onClose={onClose}
    >
      <p>{description}</p>
      <Field
        name="customer_cancellation_reason"
        label="Reason"
        error={errors.customer_cancellation_reason}
      >
        {(props) => (
          <select {...props} value={reason} onChange={(event) => setReason(event.target.value)}>
            <option value="">Not given</option>
            {cancellationReasons.map((value) => (
              <option key={value} value={value}>
                {reasonLabels[value]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        name="customer_cancellation_comment"
        label="Comment"
        error={errors.customer_cancellation_comment}
      >
        {(props) => (
          <textarea
            {...props}
            rows={3}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
        )}
      </Field>
    </ConfirmDialog>
  );
}
