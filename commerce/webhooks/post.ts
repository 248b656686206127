import http from 'node:http';
import https from 'node:https';
import { guardedLookup, refuseInternalLiteral } from './address-guard.ts';
import type { SignedHeaders } from './signing.ts';

/** The part of an endpoint's answer kept in its delivery log. */
export const responseExcerptLength = 2048;
// UTF-8 needs at most 4 bytes a character: enough bytes for the excerpt, and no more are read.
const responseExcerptBytes = responseExcerptLength * 4;

export interface PostOptions {
  timeoutMs: number;
  /** Refuse hosts resolving to internal addresses (production). */
  guardAddresses: boolean;
  /** Abandons the attempt (the worker stopping): it then answers no outcome but rejects. */
  signal?: AbortSignal;
}

/** One attempt as the delivery log records it. */
export interface PostOutcome {
  succeeded: boolean;
  httpCode: number | null;
  /** The start of the answer's body, at most 2,048 characters. */
  response: string | null;
  /** Why the attempt failed when no answer says it (timeout, refused address, redirect...). */
  error: string | null;
  durationMs: number;
}

// Deliveries to one endpoint follow each other: kept-alive connections spare a handshake each.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }),
};

/**
 * POSTs a signed webhook body: 2xx is success; anything else, a redirect (never followed), a
 * timeout or a refused address is a failure with its reason. Only the excerpt of the answer is
 * read: a huge body is cut off, never buffered.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: SignedHeaders,
  { timeoutMs, guardAddresses, signal }: PostOptions,
): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<PostOutcome>((resolve, reject) => {
    signal?.throwIfAborted();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const fail = (error: string, httpCode: number | null = null, response: string | null = null) =>
      settle({ succeeded: false, httpCode, response, error });

    let target: URL;
    try {
      target = new URL(url);
      if (guardAddresses) refuseInternalLiteral(target.hostname);
    } catch (error) {
      return fail((error as Error).message);
    }
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
    const request = (protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent: agents[protocol],
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Tollgate-Webhooks/1',
        ...headers,
      },
      ...(guardAddresses && { lookup: guardedLookup }),
    });
    timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);

    const abandon = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abandon, { once: true });
    request.on('close', () => signal?.removeEventListener('abort', abandon));
    request.on('error', (error) => fail(error.message));
    request.on('response', (answer) => {
      const status = answer.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = () => {
        const excerpt = new TextDecoder()
          .decode(Buffer.concat(chunks).subarray(0, responseExcerptBytes))
          .slice(0, responseExcerptLength);
        if (status >= 200 && status < 300) {
          settle({ succeeded: true, httpCode: status, response: excerpt, error: null });
        } else if (status >= 300 && status < 400) {
          const location = answer.headers.location ?? 'nowhere';
          fail(`redirect to ${location} not followed`, status, excerpt);
        } else {
          fail(`answered ${status}`, status, excerpt);
        }
      };
      answer.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= responseExcerptBytes) {
          // Enough for the excerpt: the rest is dropped with the connection.
          finish();
          answer.destroy();
        }
      });
      answer.on('end', finish);
      answer.on('error', finish);
    });
    request.end(body);
  });
}
