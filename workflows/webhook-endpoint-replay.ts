import type { Client, WorkflowHandle } from '@temporalio/client';
import type { MailActivities } from '../activities/mail/index.ts';
import type { DeliveryRoundOutcome, WebhookActivities } from '../activities/webhooks.ts';
import { retryDelayMs } from '../commerce/webhooks/settings.ts';
import { eventually } from '../devstack/eventually.ts';
import type { WebhookDeliverySettings } from '../domain/webhooks.ts';
import { webhookEventsQueued } from '../processes/webhook-endpoint.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';
import { webhookEndpoint } from './webhook-endpoint.ts';

// A schedule of one short wait: the first failure is tried again after about a second, the
// second disables the endpoint.
const settings: WebhookDeliverySettings = {
  retryDelaysMs: [1000],
  timeoutMs: 1000,
  guardAddresses: false,
  dashboardUrl: 'https://tollgate.example/dashboard',
};

/**
 * How each delivery round ends, in order: `failed` is a round whose last attempt was the
 * endpoint's n-th consecutive failure, answered as the real activity does (a retry time, or the
 * endpoint disabled past the schedule).
 */
type ScriptedRound = 'more' | 'drained' | 'stopped' | { failed: number };

function roundOutcome(round: ScriptedRound): DeliveryRoundOutcome {
  if (typeof round === 'string') return { kind: round };
  const delay = retryDelayMs(settings, round.failed);
  return delay === null ? { kind: 'disabled' } : { kind: 'waiting', retryAt: Date.now() + delay };
}

/**
 * Runs one endpoint's workflow, started as the relay starts it (signal with start), on workers
 * of its own: one for the workflow and the owners' mails, one for the deliveries (their own task
 * queue, as in production), with activities that answer without database, endpoint or SMTP.
 * `drive` does the rest of the scenario once the workflow started.
 */
async function recordEndpoint(
  client: Client,
  name: string,
  rounds: ScriptedRound[],
  drive: (handle: WorkflowHandle<typeof webhookEndpoint>) => Promise<void>,
): Promise<string> {
  const endpointId = `replay-${name}`;
  const workflowId = workflowIds.webhookEndpoint(endpointId);
  const taskQueue = `replay-${name}`;
  const deliveryTaskQueue = `replay-${name}-deliveries`;
  let roundsRun = 0;
  const deliveries: Pick<WebhookActivities, 'deliverWebhookEvents'> = {
    deliverWebhookEvents: async () => {
      const round = rounds[roundsRun++];
      if (round === undefined) throw new Error(`${name}: no round ${roundsRun} scripted`);
      return roundOutcome(round);
    },
  };
  const notices: Pick<WebhookActivities, 'endpointDisabledMails'> & MailActivities = {
    endpointDisabledMails: async ({ dashboardUrl }) => [
      {
        id: `webhook-endpoint-disabled:${endpointId}:946684800000:replay-owner`,
        to: 'owner@example.com',
        subject: 'Webhook endpoint disabled: https://hooks.example.com/tollgate',
        text: `Recorded for the replay test.\n\nWebhook settings: ${dashboardUrl}`,
        html: '<p>Recorded for the replay test.</p>',
      },
    ],
    sendEmail: async () => ({ messageId: '<replay@tollgate.local>' }),
  };
  const workers = {
    taskQueue,
    activities: notices,
    activityQueues: { [deliveryTaskQueue]: deliveries },
  };
  await recordOnOwnWorkers(client, workers, async () => {
    const handle = await client.workflow.signalWithStart(webhookEndpoint, {
      workflowId,
      taskQueue,
      args: [{ endpointId, settings, deliveryTaskQueue }],
      signal: webhookEventsQueued,
      signalArgs: [],
    });
    await drive(handle);
    await handle.result();
  });
  return workflowId;
}

/** Resolves once the workflow waits for new events (its idle timer is started). */
async function waitingForEvents(handle: WorkflowHandle<typeof webhookEndpoint>): Promise<void> {
  await eventually(
    async () => (await handle.fetchHistory()).events ?? [],
    (events) => events.some((event) => event.timerStartedEventAttributes),
    { what: `${handle.workflowId} waiting for events`, intervalMs: 100 },
  );
}

/**
 * Deliveries that succeed: a round whose time ran out with events left, a second that sent the
 * rest (drained), a wait ended by the relay's wake-up, then a round that finds the endpoint
 * disabled by its seller meanwhile (stopped).
 */
export const recordWebhookEndpointDelivered = (client: Client) =>
  recordEndpoint(client, 'webhook-endpoint-delivered', ['more', 'drained', 'stopped'], (handle) =>
    waitingForEvents(handle).then(() => handle.signal(webhookEventsQueued)),
  );

/**
 * A failed delivery tried again after the schedule's wait (a durable timer); failing again, past
 * the schedule, it disables the endpoint and its owners are mailed.
 */
export const recordWebhookEndpointRetried = (client: Client) =>
  recordEndpoint(
    client,
    'webhook-endpoint-retried',
    [{ failed: 1 }, { failed: 2 }],
    async () => undefined,
  );
