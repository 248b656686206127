import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Invitation, invitationsApi, organizationKey } from './api';

/** Resend (a new expiry, mailed again) and Cancel (confirmed) for an open invitation. */
export function InvitationActions({ invitation }: { invitation: Invitation }) {
  const queryClient = useQueryClient();
  const [canceling, setCanceling] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: organizationKey });
  const resend = useMutation({
    mutationFn: () => invitationsApi.resend(invitation),
    onSuccess: refresh,
  });
  return (
    <div className="row-actions">
      <button
        type="button"
        className="button"
        onClick={() => resend.mutate()}
        disabled={resend.isPending}
      >
        {resend.isPending ? 'Resending…' : resend.isSuccess ? 'Sent again' : 'Resend'}
      </button>
      <button type="button" className="button button-danger" onClick={() => setCanceling(true)}>
        Cancel
      </button>
      {resend.error && (
        <p className="field-error" role="alert">
          {resend.error.message}
        </p>
      )}
      <ConfirmDialog
        open={canceling}
        title="Cancel invitation?"
        confirmLabel="Cancel invitation"
        tone="danger"
        onClose={() => setCanceling(false)}
        onConfirm={async () => {
          await invitationsApi.cancel(invitation.id);
          await refresh();
        }}
      >
        The link mailed to {invitation.email} stops working.
      </ConfirmDialog>
    </div>
  );
}
