import { useMutation } from '@tanstack/react-query';
import { failedRenewalsApi } from './api';
import { actionOutcome } from './recovery';

/**
 * Mails the customer of a failed renewal the portal link that pays it with a new card, and
 * says whom it was mailed to (or why not).
 */
export function UpdateCardLinkButton({ subscriptionId }: { subscriptionId: string }) {
  const send = useMutation({
    mutationFn: () => failedRenewalsApi.sendUpdateCardLink(subscriptionId),
  });
  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => send.mutate()}
        disabled={send.isPending}
      >
        {send.isPending ? 'Sending…' : 'Send update-card link'}
      </button>
      <span role="status">
        {send.isSuccess && actionOutcome('update_card_link', send.data)}
        {send.isError && send.error.message}
      </span>
    </>
  );
}
