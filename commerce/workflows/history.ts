/**
 * A workflow's event history digested for the dashboard: a one-line summary per event, the
 * timers still pending, and the failures. Events come in Temporal's JSON form (historyToJSON:
 * enum names as strings, instants as ISO text, durations as `"12.5s"`, payloads in base64),
 * the same form the recorded replay histories have.
 */

interface JsonPayload {
  metadata?: { encoding?: string };
  data?: string;
}

interface JsonFailure {
  message?: string | null;
  cause?: JsonFailure | null;
}

/** An event of historyToJSON: its `<type>EventAttributes` field is read by name. */
export interface HistoryEventJson {
  eventId: string;
  eventTime: string;
  eventType: string;
  // biome-ignore lint/suspicious/noExplicitAny: each event type has its own attributes shape
  [attributes: string]: any;
}

export interface TimelineEvent {
  event_id: number;
  time: string;
  type: string;
  summary: string;
}

export interface PendingTimer {
  timer_id: string;
  started_at: string;
  fires_at: string;
}

export interface WorkflowFailure {
  event_id: number | null;
  time: string | null;
  /** activity, local_activity, workflow_task (a bug or non-determinism) or workflow. */
  source: 'activity' | 'local_activity' | 'workflow_task' | 'workflow';
  activity_type: string | null;
  attempt: number | null;
  message: string;
}

/** What the history keeps of the timeline and failures: the most recent ones. */
export const timelineLimit = 200;
export const failureLimit = 50;

/** `EVENT_TYPE_TIMER_STARTED` → `timer_started`. */
export const eventTypeName = (eventType: string) =>
  eventType.replace(/^EVENT_TYPE_/, '').toLowerCase();

/** A failure and its causes on one line: `charge failed: card declined`. */
export function failureMessage(failure: JsonFailure | null | undefined): string {
  const messages: string[] = [];
  for (let cause = failure; cause; cause = cause.cause) {
    if (cause.message && !messages.includes(cause.message)) messages.push(cause.message);
  }
  return messages.join(': ') || 'unknown failure';
}

/** A JSON payload's value (json/plain only; anything else is not shown). */
function payloadValue(payload: JsonPayload | undefined): unknown {
  const encoding = payload?.metadata?.encoding;
  if (!encoding || !payload?.data) return undefined;
  if (Buffer.from(encoding, 'base64').toString() !== 'json/plain') return undefined;
  return JSON.parse(Buffer.from(payload.data, 'base64').toString());
}

/** A proto JSON duration (`"3599.976s"`) in milliseconds. */
const durationMs = (duration: string | undefined) =>
  Math.round(Number.parseFloat(duration ?? '0') * 1000);

/** `90061000` → `1d 1h 1m 1s`: a timer's length at a glance. */
export function humanDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join(' ') || `${ms}ms`;
}

const isoTime = (time: string) => new Date(time).toISOString();

/**
 * Reads a history event by event (any number of pages) and keeps a bounded digest: the last
 * `timelineLimit` events summarized, the timers not yet fired or canceled, the last failures.
 */
export class HistoryDigest {
  readonly timeline: TimelineEvent[] = [];
  timelineOmitted = 0;
  readonly failures: WorkflowFailure[] = [];
  // What later events refer back to: activity types by scheduled event, attempts by started
  // event, update names by update id, pending timers by timer id.
  private readonly activityTypes = new Map<string, string>();
  private readonly attempts = new Map<string, number>();
  private readonly updateNames = new Map<string, string>();
  private readonly timers = new Map<string, PendingTimer>();

  get pendingTimers(): PendingTimer[] {
    return [...this.timers.values()];
  }

  add(event: HistoryEventJson): void {
    const type = eventTypeName(event.eventType);
    this.timeline.push({
      event_id: Number(event.eventId),
      time: isoTime(event.eventTime),
      type,
      summary: this.summarize(event, type),
    });
    if (this.timeline.length > timelineLimit) {
      this.timeline.shift();
      this.timelineOmitted += 1;
    }
  }

  private fail(event: HistoryEventJson, failure: Omit<WorkflowFailure, 'event_id' | 'time'>) {
    this.failures.push({
      event_id: Number(event.eventId),
      time: isoTime(event.eventTime),
      ...failure,
    });
    if (this.failures.length > failureLimit) this.failures.shift();
  }

  private summarize(event: HistoryEventJson, type: string): string {
    const camel = type.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());
    const attributes = event[`${camel}EventAttributes`] ?? {};
    switch (type) {
      case 'workflow_execution_started': {
        const from = attributes.continuedExecutionRunId;
        const started = `${attributes.workflowType?.name} started on ${attributes.taskQueue?.name}`;
        return from ? `${started}, continued from run ${from}` : started;
      }
      case 'workflow_task_failed': {
        const message = `workflow task failed: ${failureMessage(attributes.failure)}`;
        this.fail(event, {
          source: 'workflow_task',
          activity_type: null,
          attempt: null,
          message: failureMessage(attributes.failure),
        });
        return message;
      }
      case 'workflow_task_timed_out':
        return 'workflow task timed out';
      case 'activity_task_scheduled': {
        const activityType = attributes.activityType?.name ?? 'unknown';
        this.activityTypes.set(event.eventId, activityType);
        return `activity ${activityType} scheduled`;
      }
      case 'activity_task_started': {
        this.attempts.set(event.eventId, attributes.attempt ?? 1);
        return `activity ${this.activityOf(attributes)} started, attempt ${attributes.attempt ?? 1}`;
      }
      case 'activity_task_completed':
        return `activity ${this.activityOf(attributes)} completed`;
      case 'activity_task_failed':
      case 'activity_task_timed_out': {
        const message = failureMessage(attributes.failure);
        this.fail(event, {
          source: 'activity',
          activity_type: this.activityOf(attributes),
          attempt: this.attempts.get(attributes.startedEventId) ?? null,
          message,
        });
        const outcome = type === 'activity_task_failed' ? 'failed' : 'timed out';
        return `activity ${this.activityOf(attributes)} ${outcome}: ${message}`;
      }
      case 'activity_task_cancel_requested':
      case 'activity_task_canceled':
        return `activity ${this.activityOf(attributes)} ${type === 'activity_task_canceled' ? 'canceled' : 'cancel requested'}`;
      case 'timer_started': {
        const length = durationMs(attributes.startToFireTimeout);
        this.timers.set(attributes.timerId, {
          timer_id: attributes.timerId,
          started_at: isoTime(event.eventTime),
          fires_at: new Date(Date.parse(event.eventTime) + length).toISOString(),
        });
        return `timer ${attributes.timerId} started for ${humanDuration(length)}`;
      }
      case 'timer_fired':
      case 'timer_canceled':
        this.timers.delete(attributes.timerId);
        return `timer ${attributes.timerId} ${type === 'timer_fired' ? 'fired' : 'canceled'}`;
      case 'marker_recorded':
        return this.summarizeMarker(event, attributes);
      case 'workflow_execution_signaled':
        return `signal ${attributes.signalName}`;
      case 'workflow_execution_update_admitted':
        return `update ${attributes.request?.input?.name} admitted`;
      case 'workflow_execution_update_accepted': {
        const name = attributes.acceptedRequest?.input?.name ?? 'unknown';
        this.updateNames.set(attributes.acceptedRequest?.meta?.updateId, name);
        return `update ${name} accepted`;
      }
      case 'workflow_execution_update_completed': {
        const name = this.updateNames.get(attributes.meta?.updateId) ?? 'unknown';
        const failure = attributes.outcome?.failure;
        return failure
          ? `update ${name} failed: ${failureMessage(failure)}`
          : `update ${name} completed`;
      }
      case 'upsert_workflow_search_attributes':
        return `search attributes ${Object.keys(attributes.searchAttributes?.indexedFields ?? {}).join(', ')}`;
      case 'signal_external_workflow_execution_initiated':
        return `signal ${attributes.signalName} sent to ${attributes.workflowExecution?.workflowId}`;
      case 'start_child_workflow_execution_initiated':
        return `child workflow ${attributes.workflowType?.name} ${attributes.workflowId} started`;
      case 'workflow_execution_completed':
        return 'completed';
      case 'workflow_execution_failed':
      case 'workflow_execution_timed_out': {
        const message =
          type === 'workflow_execution_failed'
            ? failureMessage(attributes.failure)
            : 'workflow timed out';
        this.fail(event, { source: 'workflow', activity_type: null, attempt: null, message });
        return type === 'workflow_execution_failed' ? `failed: ${message}` : message;
      }
      case 'workflow_execution_canceled':
        return 'canceled';
      case 'workflow_execution_cancel_requested':
        return `cancel requested${attributes.cause ? `: ${attributes.cause}` : ''}`;
      case 'workflow_execution_terminated':
        return `terminated${attributes.reason ? `: ${attributes.reason}` : ''}`;
      case 'workflow_execution_continued_as_new':
        return `continued as new run ${attributes.newExecutionRunId}`;
      default:
        return type.replaceAll('_', ' ');
    }
  }

  private activityOf(attributes: { scheduledEventId?: string }): string {
    return this.activityTypes.get(attributes.scheduledEventId ?? '') ?? 'unknown';
  }

  /** Local activities are markers: their type and attempt are in the marker's data. */
  private summarizeMarker(
    event: HistoryEventJson,
    attributes: {
      markerName?: string;
      details?: Record<string, { payloads?: JsonPayload[] }>;
      failure?: JsonFailure;
    },
  ): string {
    const [data] = attributes.details?.data?.payloads ?? [];
    if (attributes.markerName === 'core_local_activity') {
      const local = payloadValue(data) as { activity_type?: string; attempt?: number } | undefined;
      const activityType = local?.activity_type ?? 'unknown';
      const attempt = local?.attempt ?? null;
      if (!attributes.failure)
        return `local activity ${activityType} completed, attempt ${attempt}`;
      const message = failureMessage(attributes.failure);
      this.fail(event, { source: 'local_activity', activity_type: activityType, attempt, message });
      return `local activity ${activityType} failed, attempt ${attempt}: ${message}`;
    }
    if (attributes.markerName === 'core_patch') {
      const [patch] = attributes.details?.['patch-data']?.payloads ?? [];
      const id = (payloadValue(patch) as { id?: string } | undefined)?.id;
      return `patch ${id ?? 'unknown'}`;
    }
    return `marker ${attributes.markerName}`;
  }
}
