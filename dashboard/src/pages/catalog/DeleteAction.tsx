import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { navigate } from '../../router';

interface DeleteActionProps {
  /** The button's words (`Delete discount`, `Archive meter`). */
  label: string;
  /** What the dialog says will happen. */
  children: ReactNode;
  run: () => Promise<unknown>;
  /** The query cache prefix to refresh once done. */
  queryKey: readonly unknown[];
  /** Where to go once done (the list). */
  then?: string;
}

/** A destructive action behind a confirmation; the dialog shows the API's refusal if any. */
export function DeleteAction({ label, children, run, queryKey, then }: DeleteActionProps) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  return (
    <>
      <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
        {label}
      </button>
      <ConfirmDialog
        open={open}
        title={`${label}?`}
        confirmLabel={label}
        tone="danger"
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          await run();
          await queryClient.invalidateQueries({ queryKey });
          if (then) navigate(then);
        }}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}
