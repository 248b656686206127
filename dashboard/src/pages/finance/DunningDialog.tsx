import { useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Money } from '../../components/Money';
import { subscriptionsKey } from '../subscriptions/api';
import {
  type DunningAction,
  type DunningResult,
  type FailedRenewal,
  failedRenewalsApi,
  failedRenewalsKey,
} from './api';

/** What each action does, as the confirmation says it. */
const actions: Record<
  DunningAction,
  { title: string; confirmLabel: string; tone: 'primary' | 'danger'; explain: string }
> = {
  retry: {
    title: 'Retry the payment now?',
    confirmLabel: 'Retry now',
    tone: 'primary',
    explain: 'The saved card is charged again at once for',
  },
  resolve: {
    title: 'Mark the renewal resolved?',
    confirmLabel: 'Mark resolved',
    tone: 'primary',
    explain: 'Say it was paid outside Tollgate: the renewal order is settled without a charge for',
  },
  cancel: {
    title: 'Cancel the subscription?',
    confirmLabel: 'Cancel subscription',
    tone: 'danger',
    explain:
      'The subscription ends now and its benefits are revoked; the unpaid renewal is given up:',
  },
};

interface DunningDialogProps {
  /** The action asked and the renewal it is for; null: the dialog is closed. */
  target: { action: DunningAction; renewal: FailedRenewal } | null;
  /** Told what the subscription became (a retry may be declined again). */
  onDone: (renewal: FailedRenewal, action: DunningAction, after: DunningResult) => void;
  onClose: () => void;
}

/** Confirms one of finance's actions on a failed renewal, then refreshes what it changed. */
export function DunningDialog({ target, onDone, onClose }: DunningDialogProps) {
  const queryClient = useQueryClient();
  const action = target ? actions[target.action] : actions.retry;
  const confirm = async () => {
    if (!target) return;
    const after = await failedRenewalsApi.act(target.renewal.id, target.action);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: failedRenewalsKey }),
      queryClient.invalidateQueries({ queryKey: subscriptionsKey }),
    ]);
    onDone(target.renewal, target.action, after);
  };
  return (
    <ConfirmDialog
      open={target !== null}
      title={action.title}
      confirmLabel={action.confirmLabel}
      tone={action.tone}
      onConfirm={confirm}
      onClose={onClose}
    >
      {target && (
        <p>
          {action.explain}{' '}
          <Money
            amount={target.renewal.amount_at_risk ?? target.renewal.amount}
            currency={target.renewal.currency}
          />{' '}
          ({target.renewal.product_name} for {target.renewal.customer_email}).
        </p>
      )}
    </ConfirmDialog>
  );
}
