import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { seededRandom } from '../../devstack/seeded-random.ts';

/**
 * Local webhook endpoints for the soak: each records every delivery Tollgate makes to it and
 * verifies its Standard Webhooks signature, and some misbehave as real receivers do: answer 500
 * to a share of deliveries, hang past the sender's timeout, or go down (connections refused)
 * for a while. `checkDeliveries` then holds the records to the promise: every event delivered,
 * in order per endpoint, repeated only under the same webhook-id.
 */

/** How a receiver answers; changeable while it runs (`setBehaviour`). */
export interface ReceiverBehaviour {
  /** Share of deliveries answered 500 (after recording), drawn per delivery. */
  failFraction?: number;
  /** Share of deliveries left unanswered for `hangMs`, then dropped. */
  hangFraction?: number;
  /** How long a hung delivery is held: past the sender's 10 s timeout by default. */
  hangMs?: number;
}

export interface ReceiverOptions extends ReceiverBehaviour {
  /** What the soak calls it; records and violations name it. */
  name: string;
  /** Makes the draws repeatable. */
  seed?: number;
  /** Listen here (so that coming back after `goDown` keeps the URL); a free port when unset. */
  port?: number;
}

/** What the receiver did with a delivery: `accepted` is the only one the sender counts as sent. */
export type DeliveryOutcome = 'accepted' | 'failed' | 'hung';

export interface DeliveryRecord {
  receiver: string;
  webhookId: string;
  /** The body's `type`. */
  eventType: string;
  /** The body's `timestamp` (the outbox event's creation, to the microsecond). */
  eventTimestamp: string;
  /** The body's `data.id`: the resource the event is about. */
  bodyId: string;
  /** Identifies the outbox event across endpoints and attempts (see `eventKey`). */
  eventKey: string;
  receivedAt: number;
  outcome: DeliveryOutcome;
  /** Whether the signature verified with the endpoint's secret; undefined before `setSecret`. */
  signatureValid: boolean | undefined;
}

/**
 * The key of an outbox event as its deliveries show it: type, creation time and resource id.
 * In SQL: `type`, `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
 * and `data->>'id'` of `outbox_events` (the relay's own format).
 */
export const eventKey = (type: string, timestamp: string, bodyId: string) =>
  `${type}@${timestamp}#${bodyId}`;

/** `eventKey` of an `outbox_events` row, in SQL (select it `as key`). */
export const outboxEventKeySql = `type || '@' || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '#' || coalesce(data->>'id', '')`;

export interface SoakReceiver {
  name: string;
  /** The endpoint URL to register with Tollgate. */
  url: string;
  /** Every delivery, in arrival order. */
  records: DeliveryRecord[];
  /** The endpoint's secret as Tollgate answered it on creation: signatures are checked from now. */
  setSecret(secret: string): void;
  /** Answers from now on as `behaviour` says (healthy: `{}`). */
  setBehaviour(behaviour: ReceiverBehaviour): void;
  /** Refuses connections (those open are destroyed) until `comeBack`. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  /** Down for `ms`, then back: resolves once back. */
  downFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts one receiver per options entry, side by side. */
export function startReceivers(options: ReceiverOptions[]): Promise<SoakReceiver[]> {
  return Promise.all(options.map(startReceiver));
}

export async function startReceiver(options: ReceiverOptions): Promise<SoakReceiver> {
  const records: DeliveryRecord[] = [];
  const random = options.seed === undefined ? Math.random : seededRandom(options.seed);
  let behaviour: ReceiverBehaviour = options;
  let verifier: Webhook | undefined;
  const sockets = new Set<Socket>();
  const hangTimers = new Set<NodeJS.Timeout>();
  let server: Server | undefined;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const { failFraction = 0, hangFraction = 0, hangMs = 15_000 } = behaviour;
    const draw = random();
    const outcome: DeliveryOutcome =
      draw < failFraction ? 'failed' : draw < failFraction + hangFraction ? 'hung' : 'accepted';
    records.push(recordOf(options.name, request, body, outcome, verifier));
    if (outcome === 'hung') {
      const timer = setTimeout(() => {
        hangTimers.delete(timer);
        response.destroy();
      }, hangMs);
      hangTimers.add(timer);
      return;
    }
    response.writeHead(outcome === 'accepted' ? 200 : 500, { 'content-type': 'text/plain' });
    response.end(outcome === 'accepted' ? 'ok' : 'soak receiver failing on purpose');
  };

  const listen = async (port: number) => {
    const listening = createServer((request, response) => {
      handle(request, response).catch(() => response.destroy());
    });
    listening.on('connection', (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    server = listening;
    return (listening.address() as AddressInfo).port;
  };
  const port = await listen(options.port ?? 0);

  const goDown = async () => {
    const closing = server;
    server = undefined;
    if (!closing) return;
    for (const timer of hangTimers) clearTimeout(timer);
    hangTimers.clear();
    const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  const comeBack = async () => {
    if (!server) await listen(port);
  };
  return {
    name: options.name,
    url: `http://127.0.0.1:${port}/webhooks/${encodeURIComponent(options.name)}`,
    records,
    setSecret(secret) {
      // Tollgate's key is the secret's UTF-8 bytes; a generic verifier takes them base64.
      verifier = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    },
    setBehaviour(next) {
      behaviour = next;
    },
    goDown,
    comeBack,
    async downFor(ms) {
      await goDown();
      await new Promise((resolve) => setTimeout(resolve, ms));
      await comeBack();
    },
    close: goDown,
  };
}

function recordOf(
  receiver: string,
  request: IncomingMessage,
  body: string,
  outcome: DeliveryOutcome,
  verifier: Webhook | undefined,
): DeliveryRecord {
  const headers = request.headers as Record<string, string>;
  let parsed: { type?: unknown; timestamp?: unknown; data?: { id?: unknown } } = {};
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: recorded with empty fields, and its signature tells the rest.
  }
  const eventType = String(parsed.type ?? '');
  const eventTimestamp = String(parsed.timestamp ?? '');
  const bodyId = String(parsed.data?.id ?? '');
  let signatureValid: boolean | undefined;
  if (verifier) {
    try {
      verifier.verify(body, headers);
      signatureValid = true;
    } catch {
      signatureValid = false;
    }
  }
  return {
    receiver,
    webhookId: headers['webhook-id'] ?? '',
    eventType,
    eventTimestamp,
    bodyId,
    eventKey: eventKey(eventType, eventTimestamp, bodyId),
    receivedAt: Date.now(),
    outcome,
    signatureValid,
  };
}

export interface DeliveryViolation {
  kind: 'missing' | 'out-of-order' | 'duplicate' | 'bad-signature' | 'unexpected';
  receiver: string;
  eventKey: string;
  /** The webhook-ids involved, to look up in webhook_events / the delivery log. */
  webhookIds: string[];
  detail: string;
}

/**
 * What breaks the delivery promise, given every receiver's records and, per receiver name, the
 * keys (`eventKey`) of the events it is subscribed to, in the order they were emitted:
 * - `missing`: an expected event never accepted;
 * - `out-of-order`: an event accepted for the first time after a later one was;
 * - `duplicate`: one event delivered under different webhook-ids (a retry keeps its id);
 * - `bad-signature`: a delivery whose signature did not verify;
 * - `unexpected`: an accepted event not expected at that receiver.
 * Repeats under one webhook-id are allowed (at-least-once): a hung or failed attempt is retried.
 */
export function checkDeliveries(
  records: DeliveryRecord[],
  expectedEventsPerEndpoint: Record<string, string[]>,
): DeliveryViolation[] {
  const violations: DeliveryViolation[] = [];
  const receivers = new Set([
    ...Object.keys(expectedEventsPerEndpoint),
    ...records.map((r) => r.receiver),
  ]);
  for (const receiver of receivers) {
    const own = records.filter((record) => record.receiver === receiver);
    const expected = expectedEventsPerEndpoint[receiver] ?? [];
    const position = new Map(expected.map((key, index) => [key, index]));
    for (const record of own) {
      if (record.signatureValid === false) {
        violations.push({
          kind: 'bad-signature',
          receiver,
          eventKey: record.eventKey,
          webhookIds: [record.webhookId],
          detail: `the signature of ${record.webhookId} did not verify`,
        });
      }
    }
    const idsOf = new Map<string, Set<string>>();
    for (const record of own) {
      const ids = idsOf.get(record.eventKey) ?? new Set();
      ids.add(record.webhookId);
      idsOf.set(record.eventKey, ids);
    }
    for (const [key, ids] of idsOf) {
      if (ids.size > 1) {
        violations.push({
          kind: 'duplicate',
          receiver,
          eventKey: key,
          webhookIds: [...ids],
          detail: `delivered under ${ids.size} webhook-ids`,
        });
      }
    }
    const firstAccepted = new Map<string, DeliveryRecord>();
    for (const record of own) {
      if (record.outcome === 'accepted' && !firstAccepted.has(record.eventKey)) {
        firstAccepted.set(record.eventKey, record);
      }
    }
    let latest: { index: number; record: DeliveryRecord } | undefined;
    for (const [key, record] of firstAccepted) {
      const index = position.get(key);
      if (index === undefined) {
        violations.push({
          kind: 'unexpected',
          receiver,
          eventKey: key,
          webhookIds: [record.webhookId],
          detail: `${record.eventType} of ${record.bodyId} was not expected here`,
        });
        continue;
      }
      if (latest && index < latest.index) {
        violations.push({
          kind: 'out-of-order',
          receiver,
          eventKey: key,
          webhookIds: [record.webhookId, latest.record.webhookId],
          detail: `accepted after ${latest.record.eventKey}, which was emitted later`,
        });
      } else {
        latest = { index, record };
      }
    }
    for (const key of expected) {
      if (!firstAccepted.has(key)) {
        violations.push({
          kind: 'missing',
          receiver,
          eventKey: key,
          webhookIds: [...(idsOf.get(key) ?? [])],
          detail: idsOf.has(key) ? 'attempted, never accepted' : 'never delivered',
        });
      }
    }
  }
  return violations;
}
