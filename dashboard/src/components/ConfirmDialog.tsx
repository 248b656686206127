import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in words; may hold inputs (a refund's amount and reason). */
  children: ReactNode;
  confirmLabel: string;
  /** `danger` for what cannot be undone (revoke, refund, cancel). */
  tone?: 'danger' | 'primary';
  /**
   * Runs the action; the dialog stays open with the error shown when it fails. Without it the
   * dialog only shows its content, with a Close button (a reader's view of what writers act on).
   */
  onConfirm?: () => Promise<unknown>;
  onClose: () => void;
}

/**
 * A modal confirmation on the browser's <dialog>: focus moves into it and stays there, Escape
 * and Cancel close it, and focus returns to the button that opened it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  tone = 'primary',
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      setError(null);
      element.showModal();
    }
    if (!open && element.open) element.close();
  }, [open]);

  const confirm = async () => {
    if (!onConfirm) return;
    setPending(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setPending(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      // Escape closes the dialog, except while the action runs; closing it from `open` is no news.
      onCancel={(event) => pending && event.preventDefault()}
      onClose={() => open && onClose()}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      {error && (
        <div className="error-message" role="alert">
          {error.message}
        </div>
      )}
      <div className="form-actions">
        {onConfirm && (
          <button
            type="button"
            className={`button button-${tone}`}
            onClick={confirm}
            disabled={pending}
          >
            {pending ? `${confirmLabel}…` : confirmLabel}
          </button>
        )}
        <button type="button" className="button" onClick={onClose} disabled={pending}>
          {onConfirm ? 'Cancel' : 'Close'}
        </button>
      </div>
    </dialog>
  );
}
