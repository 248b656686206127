import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decline } from './test-cards.ts';

/** Stripe's calls and answers as the simulator reads and writes them. */
export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  body: Json;
  /** Stripe events the call caused, sent once it is answered. */
  events?: StripeEvent[];
  /** A page instead of the JSON body (the control API's 3-D Secure challenge). */
  html?: string;
  /** Headers of the answer besides its content type (a redirect's Location). */
  headers?: Record<string, string>;
}

export interface StripeEvent {
  id: string;
  type: string;
  object: Json;
  created: number;
  apiVersion: string | null;
  request: { id: string; idempotency_key: string | null };
  /** When an endpoint took it (ms since the epoch), once per delivery: duplicates show. */
  deliveredAt: number[];
}

export interface Request {
  method: string;
  path: string;
  search: string;
  query: Json;
  form: Json;
  rawBody: string;
  headers: IncomingMessage['headers'];
  requestId: string;
  /** A `decline` fault this PaymentIntent confirmation answers, whatever its card. */
  forcedDecline?: Decline;
}

export const stripeId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;
export const now = () => Math.floor(Date.now() / 1000);

export const stripeError = (status: number, error: Json): Answer => ({ status, body: { error } });

/** Stripe's form encoding (`metadata[key]=v`, `expand[0]=x`) back into nested values. */
export function parseStripeForm(encoded: string): Json {
  const root: Json = {};
  for (const [name, value] of new URLSearchParams(encoded)) {
    const keys = name.split(/\[|\]\[|\]$/).filter((key, index) => index === 0 || key !== '');
    let node: Json = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node[key] = value;
        return;
      }
      node[key] ??= {};
      node = node[key] as Json;
    });
  }
  return arraysOf(root) as Json;
}

/** Objects whose keys are 0, 1, 2… (from `expand[0]`) become arrays. */
function arraysOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([key, item]) => [key, arraysOf(item)] as const);
  const indexed = entries.length > 0 && entries.every(([key], index) => key === String(index));
  return indexed ? entries.map(([, item]) => item) : Object.fromEntries(entries);
}

/** An incoming call, its body read: form-encoded as Stripe's, or JSON as the control API's. */
export async function readRequest(incoming: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  const url = new URL(incoming.url ?? '/', 'http://simulator');
  const isJson = incoming.headers['content-type']?.startsWith('application/json');
  return {
    method: incoming.method ?? 'GET',
    path: url.pathname,
    search: url.search,
    query: parseStripeForm(url.search.slice(1)),
    form: isJson && rawBody ? (JSON.parse(rawBody) as Json) : parseStripeForm(rawBody),
    rawBody,
    headers: incoming.headers,
    requestId: stripeId('req'),
  };
}

/** Writes an answer as Stripe does: pretty JSON, with the call's `request-id`. */
export function sendAnswer(
  response: ServerResponse,
  request: Request,
  answer: Answer,
  extraHeaders: Record<string, string> = {},
): void {
  response.writeHead(answer.status, {
    'content-type': answer.html === undefined ? 'application/json' : 'text/html; charset=utf-8',
    'request-id': request.requestId,
    ...answer.headers,
    ...extraHeaders,
  });
  response.end(answer.html ?? JSON.stringify(answer.body, null, 2));
}
