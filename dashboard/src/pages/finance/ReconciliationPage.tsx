import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import {
  mismatchesKey,
  mismatchKindLabels,
  opsApi,
  type PaymentMismatch,
  type UpkeepJob,
  upkeepJobLabels,
  upkeepKey,
} from './reconciliation-api';

/** How often a schedule runs, in words: `every hour`, `every 24 hours`. */
function interval(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds % 3600 === 0)
    return seconds === 3600 ? 'every hour' : `every ${seconds / 3600} hours`;
  return seconds % 60 === 0 ? `every ${seconds / 60} minutes` : `every ${seconds} seconds`;
}

function Amount({ amount, currency }: { amount: number | null; currency: string | null }) {
  return amount === null || currency === null ? '—' : <Money amount={amount} currency={currency} />;
}

/**
 * For platform admins: the periodic upkeep the worker's Temporal Schedules run, and what the
 * nightly reconciliation of Stripe's payments against the orders found.
 */
export default function ReconciliationPage() {
  const queryClient = useQueryClient();
  const schedules = useQuery({
    queryKey: upkeepKey,
    queryFn: ({ signal }) => opsApi.schedules(signal),
  });
  const mismatches = useQuery({
    queryKey: mismatchesKey,
    queryFn: ({ signal }) => opsApi.mismatches(signal),
  });
  const trigger = useMutation({
    mutationFn: (job: UpkeepJob) => opsApi.trigger(job),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['ops'] }),
  });

  return (
    <section className="page">
      <header className="page-header">
        <h1>Reconciliation and upkeep</h1>
      </header>

      <Section title="Payment mismatches">
        {mismatches.isError && (
          <ErrorMessage title="Could not load the mismatches" error={mismatches.error} />
        )}
        {mismatches.isPending && <p className="muted">Loading…</p>}
        {mismatches.data && mismatches.data.items.length === 0 && (
          <p className="muted">Stripe’s payments and the orders agree.</p>
        )}
        {mismatches.data && mismatches.data.items.length > 0 && (
          <MismatchTable items={mismatches.data.items} />
        )}
      </Section>

      <Section title="Scheduled upkeep">
        {schedules.isError && (
          <ErrorMessage title="Could not load the schedules" error={schedules.error} />
        )}
        {trigger.isError && <ErrorMessage title="Could not run the job" error={trigger.error} />}
        {schedules.data && (
          <table className="data-table">
            <thead>
              <tr>
                <th>Job</th>
                <th>Runs</th>
                <th>Last run</th>
                <th>Next run</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {schedules.data.items.map((schedule) => (
                <tr key={schedule.job}>
                  <td>
                    {upkeepJobLabels[schedule.job]}
                    <div className="muted">{schedule.scheduleId}</div>
                  </td>
                  <td>
                    {interval(schedule.everySeconds)}
                    {schedule.paused && <StatusBadge tone="warning">paused</StatusBadge>}
                  </td>
                  <td>
                    <DateTime value={schedule.lastRunAt} />
                  </td>
                  <td>
                    <DateTime value={schedule.nextRunAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={trigger.isPending}
                      onClick={() => trigger.mutate(schedule.job)}
                    >
                      Run now
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </section>
  );
}

function MismatchTable({ items }: { items: PaymentMismatch[] }) {
  return (
    <table className="data-table">
      <thead>
        <tr>
          <th>Found</th>
          <th>PaymentIntent</th>
          <th>Order</th>
          <th>At Stripe</th>
          <th>Recorded</th>
          <th>Created</th>
          <th>Last seen</th>
        </tr>
      </thead>
      <tbody>
        {items.map((mismatch) => (
          <tr key={mismatch.id}>
            <td>
              <StatusBadge tone={mismatch.kind === 'amount_differs' ? 'warning' : 'failed'}>
                {mismatchKindLabels[mismatch.kind]}
              </StatusBadge>
            </td>
            <td>
              <code>{mismatch.paymentIntentId ?? '—'}</code>
            </td>
            <td>
              <code>{mismatch.orderId ?? '—'}</code>
            </td>
            <td>
              <Amount amount={mismatch.stripeAmount} currency={mismatch.currency} />
            </td>
            <td>
              <Amount amount={mismatch.recordedAmount} currency={mismatch.currency} />
            </td>
            <td>
              <DateTime value={mismatch.occurredAt} />
            </td>
            <td>
              <DateTime value={mismatch.lastSeenAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
