import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../../devstack/eventually.ts';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** Answers one request; `count` is its number at this receiver, from 1. */
export type ReceiverHandler = (
  request: ReceivedWebhook,
  response: ServerResponse,
  count: number,
) => void;

const answerOk: ReceiverHandler = (_request, response) => response.end('ok');

/** A local webhook receiver (node:http) that keeps every request it got, in order. */
export async function startReceiver(handler: ReceiverHandler = answerOk) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhook = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      received.push(webhook);
      handler(webhook, response, received.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Resolves once `count` requests arrived; fails after `timeoutMs`, naming `what`. */
    receivedAtLeast: (count: number, what: string, timeoutMs?: number) =>
      eventually(
        () => received.length,
        (arrived) => arrived >= count,
        { what, ...(timeoutMs && { timeoutMs }) },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
