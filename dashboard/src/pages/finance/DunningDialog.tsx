import { useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Money } from '../../components/Money';
import { subscriptionsKey } from '../subscriptions/api';
import {
  type FailedRenewal,
  type FinanceAction,
  failedRenewalsApi,
  failedRenewalsKey,
} from './api';
import { actionOutcome } from './recovery';

/** What each action does, as the confirmation says it. */
const actions: Record<
  FinanceAction,
  { title: string; confirmLabel: string; tone: 'primary' | 'danger'; explain: string }
> = {
  retry: {
    title: 'Retry the payment now?',
    confirmLabel: 'Retry now',
    tone: 'primary',
    explain: 'The saved card is charged again at once for',
  },
  update_card_link: {
    title: 'Send the update-card link?',
    confirmLabel: 'Send link',
    tone: 'primary',
    explain:
      'The customer is mailed a link that signs them into the portal, where a new card pays at once',
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
  target: { action: FinanceAction; renewal: FailedRenewal } | null;
  /** Told what the action did, in words (a retry may be declined again). */
  onDone: (renewal: FailedRenewal, outcome: string) => void;
  onClose: () => void;
}

/** Confirms one of finance's actions on a failed renewal, then refreshes what it changed. */
export function DunningDialog({ target, onDone, onClose }: DunningDialogProps) {
  const queryClient = useQueryClient();
  const action = target ? actions[target.action] : actions.retry;
  const confirm = async () => {
    if (!target) return;
    const { renewal } = target;
    const result =
      target.action === 'update_card_link'
        ? await failedRenewalsApi.sendUpdateCardLink(renewal.id)
        : await failedRenewalsApi.act(renewal.id, target.action);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: failedRenewalsKey }),
      queryClient.invalidateQueries({ queryKey: subscriptionsKey }),
    ]);
    onDone(renewal, actionOutcome(target.action, result));
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
