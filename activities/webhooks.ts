import { Context } from '@temporalio/activity';
import { type PostOutcome, postWebhook } from '../commerce/webhooks/post.ts';
import { QueuedEventsWatcher } from '../commerce/webhooks/queue.ts';
import { retryDelayMs } from '../commerce/webhooks/settings.ts';
import { signWebhook } from '../commerce/webhooks/signing.ts';
import { businessMetrics } from '../core/metrics.ts';
import { Member, WebhookEndpoint, WebhookEvent } from '../db/entities/index.ts';
import { newId } from '../db/ids.ts';
import type { Orm } from '../db/orm.ts';
import { splitRoles } from '../domain/permissions.ts';
import type { WebhookDeliverySettings } from '../domain/webhooks.ts';
import { escapeHtml } from '../integrations/mail/templates.ts';
import type { EmailMessage } from './mail/index.ts';

/** What a round of deliveries to one endpoint ended with, for its workflow to act on. */
export type DeliveryRoundOutcome =
  | { kind: 'drained' }
  /** The oldest undelivered event failed: nothing more is sent before `retryAt` (epoch ms). */
  | { kind: 'waiting'; retryAt: number }
  /** The time budget ran out with events left: the workflow starts another round at once. */
  | { kind: 'more' }
  /** This round's failure crossed the threshold: the endpoint is now disabled. */
  | { kind: 'disabled' }
  /** The endpoint is gone or disabled: nothing to do. */
  | { kind: 'stopped' };

// A round stops taking new events after this long, so the workflow sees progress and can be
// stopped.
const roundBudgetMs = 60_000;
// Within the workflow's heartbeat timeout (10 s) with room to spare.
const heartbeatEveryMs = 2_000;
const eventsPerRead = 50;
// A drained round waits this long for the endpoint's next events before it ends: under steady
// traffic an event is then sent as soon as it is queued, without a workflow task in between.
const lingerMs = 3_000;

export function createWebhookActivities(orm: Orm) {
  const watcher = new QueuedEventsWatcher(orm.config.get('clientUrl') as string);
  return {
    /**
     * Sends the endpoint's undelivered events, oldest first, until none is left, one fails or
     * the round's time is up; each attempt is logged (WebhookDelivery) with the event's new
     * state in one transaction. Safe to run again: an event is delivered until recorded as
     * such, so a round cut short (worker lost mid-request) sends that event again.
     */
    async deliverWebhookEvents({
      endpointId,
      settings,
    }: {
      endpointId: string;
      settings: WebhookDeliverySettings;
    }): Promise<DeliveryRoundOutcome> {
      const context = Context.current();
      // Heartbeats for as long as the round runs (a request may take its whole timeout): a
      // worker that dies stops them, and Temporal runs the round again on another.
      const beating = setInterval(() => context.heartbeat(), heartbeatEveryMs);
      try {
        return await deliverRound(orm, watcher, endpointId, settings, context.cancellationSignal);
      } finally {
        clearInterval(beating);
      }
    },

    /**
     * The mails telling an organization's owners that `endpointId` was disabled, for the mail
     * activity to send; none when the endpoint is gone or enabled again.
     */
    async endpointDisabledMails({
      endpointId,
      dashboardUrl,
    }: {
      endpointId: string;
      dashboardUrl: string;
    }): Promise<EmailMessage[]> {
      const em = orm.em.fork();
      const endpoint = await em.findOne(WebhookEndpoint, endpointId, {
        populate: ['organization'],
      });
      if (!endpoint || endpoint.enabled || !endpoint.disabledAt) return [];
      const members = await em.find(
        Member,
        { organization: endpoint.organization.id },
        { populate: ['user'] },
      );
      const owners = members.filter((member) => splitRoles(member.role).includes('owner'));
      const organization = endpoint.organization.name;
      const subject = `Webhook endpoint disabled: ${endpoint.url}`;
      const paragraphs = [
        `Tollgate stopped sending webhooks of ${organization} to ${endpoint.url}: its deliveries failed ${endpoint.consecutiveFailures} times in a row, over about three days.`,
        `Last failure: ${endpoint.disabledReason ?? 'unknown'}.`,
        'Events not yet delivered are kept. Fix the endpoint, then enable it again (PATCH /v1/webhooks/endpoints/{id} with "enabled": true): they are sent in order.',
      ];
      const text = [...paragraphs, `Webhook settings: ${dashboardUrl}`].join('\n\n');
      const html = `<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5; color: #1f2328">
${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
<p><a href="${escapeHtml(dashboardUrl)}">Webhook settings</a></p>
</body>
</html>
`;
      const stamp = endpoint.disabledAt.getTime();
      return owners.map((owner) => ({
        id: `webhook-endpoint-disabled:${endpoint.id}:${stamp}:${owner.user.id}`,
        to: owner.user.email,
        subject,
        text,
        html,
      }));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/** One round of `deliverWebhookEvents`. */
async function deliverRound(
  orm: Orm,
  watcher: QueuedEventsWatcher,
  endpointId: string,
  settings: WebhookDeliverySettings,
  cancellationSignal: AbortSignal,
): Promise<DeliveryRoundOutcome> {
  const started = Date.now();
  let lastSent = started;
  while (Date.now() - started < roundBudgetMs) {
    const em = orm.em.fork();
    const endpoint = await em.findOne(WebhookEndpoint, endpointId);
    if (!endpoint?.enabled) return { kind: 'stopped' };
    const events = await em.find(
      WebhookEvent,
      { endpoint: endpointId, succeeded: null },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], limit: eventsPerRead },
    );
    if (events.length === 0) {
      const lingered = Date.now() - lastSent;
      if (lingered >= lingerMs) return { kind: 'drained' };
      await watcher.waitFor(endpointId, lingerMs - lingered, cancellationSignal);
      cancellationSignal.throwIfAborted();
      continue;
    }
    for (const event of events) {
      const due = event.nextAttemptAt?.getTime() ?? 0;
      if (due > Date.now()) return { kind: 'waiting', retryAt: due };
      const headers = signWebhook(endpoint.secret, event.id, new Date(), event.payload);
      const outcome = await postWebhook(endpoint.url, event.payload, headers, {
        ...settings,
        signal: cancellationSignal,
      });
      const recorded = await recordAttempt(orm, endpoint, event, outcome, settings);
      if (recorded) return recorded;
      lastSent = Date.now();
      if (Date.now() - started >= roundBudgetMs) break;
    }
  }
  return { kind: 'more' };
}

/**
 * Logs one attempt and moves the event and the endpoint on, in one statement (so one
 * transaction and one round trip): delivered, or due again after the schedule's next wait, or
 * (past the threshold) the endpoint disabled. Answers the round's outcome when it must stop.
 */
async function recordAttempt(
  orm: Orm,
  endpoint: WebhookEndpoint,
  event: WebhookEvent,
  outcome: PostOutcome,
  settings: WebhookDeliverySettings,
): Promise<DeliveryRoundOutcome | undefined> {
  const failures = outcome.succeeded ? 0 : endpoint.consecutiveFailures + 1;
  const delay = outcome.succeeded ? null : retryDelayMs(settings, failures);
  const retryAt = delay === null ? null : new Date(Date.now() + delay);
  const disable = !outcome.succeeded && retryAt === null;
  const endpointChanges = failures !== endpoint.consecutiveFailures || disable;
  const attempt = event.attempts + 1;
  await orm.em.getConnection().execute(
    `with delivery as (
       insert into webhook_deliveries (id, webhook_event_id, endpoint_id, attempt, succeeded,
         http_code, response, error, duration_ms, created_at, modified_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, now(), null)
     ), endpoint as (
       update webhook_endpoints set consecutive_failures = ?,
         enabled = enabled and not ?::boolean,
         disabled_at = case when ?::boolean then now() else disabled_at end,
         disabled_reason = case when ?::boolean then ? else disabled_reason end
       where id = ? and ?::boolean
     )
     update webhook_events set attempts = ?, succeeded = ?, last_http_code = ?,
       next_attempt_at = ?, modified_at = now()
     where id = ?`,
    [
      newId(),
      event.id,
      endpoint.id,
      attempt,
      outcome.succeeded,
      outcome.httpCode,
      outcome.response,
      outcome.error,
      outcome.durationMs,
      failures,
      disable,
      disable,
      disable,
      (outcome.error ?? `answered ${outcome.httpCode}`).slice(0, 255),
      endpoint.id,
      endpointChanges,
      attempt,
      outcome.succeeded ? true : null,
      outcome.httpCode,
      retryAt,
      event.id,
    ],
  );
  businessMetrics.webhookDeliveries.inc({ outcome: outcome.succeeded ? 'succeeded' : 'failed' });
  endpoint.consecutiveFailures = failures;
  event.attempts = attempt;
  if (disable) return { kind: 'disabled' };
  if (retryAt) return { kind: 'waiting', retryAt: retryAt.getTime() };
  return undefined;
}
