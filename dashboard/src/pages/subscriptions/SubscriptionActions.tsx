import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DateTime } from '../../components/DateTime';
import { type Cancellation, type Subscription, subscriptionsApi, subscriptionsKey } from './api';
import { CancellationDialog } from './CancellationDialog';

type Ending = 'cancel' | 'revoke';

/** The buttons at the top of a subscription: cancel at period end or undo it, revoke now. */
export function SubscriptionActions({ subscription }: { subscription: Subscription }) {
  const queryClient = useQueryClient();
  const [ending, setEnding] = useState<Ending | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: subscriptionsKey });
  const uncancel = useMutation({
    mutationFn: () => subscriptionsApi.uncancel(subscription.id),
    onSuccess: refresh,
  });
  const ended = subscription.status === 'canceled' || subscription.status === 'incomplete_expired';
  if (ended) return null;

  const send = async (cancellation: Cancellation) => {
    if (ending === 'revoke') await subscriptionsApi.revoke(subscription.id, cancellation);
    else await subscriptionsApi.cancelAtPeriodEnd(subscription.id, cancellation);
    await refresh();
  };

  return (
    <>
      {uncancel.isError && (
        <span className="field-error" role="alert">
          {uncancel.error.message}
        </span>
      )}
      {subscription.cancel_at_period_end ? (
        <button
          type="button"
          className="button"
          onClick={() => uncancel.mutate()}
          disabled={uncancel.isPending}
        >
          {uncancel.isPending ? 'Keeping it…' : 'Keep subscription'}
        </button>
      ) : (
        <button type="button" className="button" onClick={() => setEnding('cancel')}>
          Cancel at period end
        </button>
      )}
      <button type="button" className="button button-danger" onClick={() => setEnding('revoke')}>
        Revoke now
      </button>
      <CancellationDialog
        open={ending !== null}
        title={ending === 'revoke' ? 'Revoke the subscription now?' : 'Cancel at period end?'}
        description={
          ending === 'revoke' ? (
            'The subscription ends at once and its benefits are revoked. This cannot be undone.'
          ) : (
            <>
              The subscription stays active until{' '}
              <DateTime value={subscription.current_period_end} />, then ends without renewing.
            </>
          )
        }
        confirmLabel={ending === 'revoke' ? 'Revoke' : 'Cancel at period end'}
        send={send}
        onClose={() => setEnding(null)}
      />
    </>
  );
}
