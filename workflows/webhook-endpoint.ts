import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail/index.ts';
import type { WebhookActivities } from '../activities/webhooks.ts';
import { type WebhookEndpointInput, webhookEventsQueued } from '../processes/webhook-endpoint.ts';
import { mailActivityOptions } from './activity-options.ts';

// A quiet endpoint's workflow ends after this long; the next event starts it again.
const idleLifetime = '1 hour';
// History events before it is handed to a fresh run (continue-as-new), well below Temporal's
// limits: every wake-up signal and every round adds a few.
const historyPerRun = 5_000;

/**
 * Delivers an endpoint's queue of webhook events, one at a time and in order. The queue is the
 * database (webhook_events not yet delivered, oldest first); this workflow only decides when to
 * work on it: at once when told of new events, at the retry time after a failure, and never
 * again once the endpoint is disabled (its owners are then mailed).
 *
 * Why one workflow per endpoint rather than one per delivery: order per endpoint needs a single
 * sender per endpoint, retries of days need a durable timer per endpoint, not per event (an
 * endpoint down for a weekend holds thousands of events behind one timer), and each delivery is
 * a database row rather than workflow history, so throughput is one activity per batch, not
 * per event. A round that runs out of events waits a few seconds for the next ones (told by
 * PostgreSQL), so under steady traffic an event goes out as soon as it is queued, with no
 * workflow task in between. Endpoints never wait on each other: each has its own workflow and
 * activities, on a task queue of their own.
 */
export async function webhookEndpoint(input: WebhookEndpointInput): Promise<string> {
  const deliveries = proxyActivities<WebhookActivities>({
    taskQueue: input.deliveryTaskQueue,
    // A round runs for about a minute at most (activities/webhooks.ts), heartbeating every 2 s;
    // a worker lost mid-round is noticed by the missing heartbeat, and it runs again:
    // the delivery in flight is sent again (at least once), none is lost.
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  // As the sendEmail workflow: about nine minutes of an unreachable SMTP server are ridden out.
  const notices = proxyActivities<WebhookActivities & MailActivities>(mailActivityOptions);

  let queued = false;
  setHandler(webhookEventsQueued, () => {
    queued = true;
  });

  while (workflowInfo().historyLength < historyPerRun && !workflowInfo().continueAsNewSuggested) {
    queued = false;
    const outcome = await deliveries.deliverWebhookEvents(input);
    // A wake-up that came meanwhile (the endpoint enabled again, say) is looked at before ending.
    if (outcome.kind === 'stopped' && !queued) return 'stopped';
    if (outcome.kind === 'disabled') {
      const mails = await notices.endpointDisabledMails({
        endpointId: input.endpointId,
        dashboardUrl: input.settings.dashboardUrl,
      });
      for (const message of mails) await notices.sendEmail(message);
      if (!queued) return 'disabled';
    }
    if (outcome.kind === 'drained' && !(await condition(() => queued, idleLifetime))) {
      return 'idle';
    }
    // New events do not cut a retry wait short: they queue behind the failing one anyway.
    if (outcome.kind === 'waiting') await sleep(Math.max(outcome.retryAt - Date.now(), 1));
  }
  // Signals that arrived meanwhile wake the next run at once (it starts by delivering).
  return continueAsNew<typeof webhookEndpoint>(input);
}
