import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import type { TestApi } from '../commerce/testing.ts';
import type { TestStack } from '../devstack/test-stack.ts';
import { startTracing } from './tracing.ts';

// Tracing starts before the API and the worker are imported, as core/start-tracing.ts does in
// their processes: pg is patched as it is first loaded (see core/tracing.ts). Both run here,
// in this process, so that one in-memory exporter sees every span of a checkout.
const exporter = new InMemorySpanExporter();
const tracing = startTracing('tollgate-test', { exporter });
const { startTestApi } = await import('../api/testing.ts');
const { callV1, createSeller } = await import('../commerce/testing.ts');
const { loadRuntimeConfig } = await import('../config/env.ts');
const { eventually } = await import('../devstack/eventually.ts');
const { startOwnTestStack } = await import('../devstack/test-stack.ts');
const { workflowIds } = await import('../processes/workflow-ids.ts');
const { createWorker } = await import('../temporal/worker.ts');
const { DefaultLogger, Runtime } = await import('@temporalio/worker');

/** The span and its ancestors, nearest first; every parent must be among `spans`. */
function ancestry(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((each) => [each.spanContext().spanId, each]));
  const chain = [span];
  for (let parentId = span.parentSpanId; parentId; ) {
    const parent = byId.get(parentId);
    assert.ok(parent, `${chain.at(-1)?.name}'s parent ${parentId} was exported`);
    chain.push(parent);
    parentId = parent.parentSpanId;
  }
  return chain;
}

describe('tracing', () => {
  let stack: TestStack;
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof createWorker>>;
  let running: Promise<void>;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    // A stack of its own without the run's worker process: the workflows run on the worker
    // started here, with this process's tracing.
    const { stack: started, env: own } = await startOwnTestStack({}, { worker: false });
    stack = started;
    const config = loadRuntimeConfig({ ...own, ...stack.env });
    // The SDK's own lines (bundling, worker states) only when something is wrong.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    worker = await createWorker(config);
    running = worker.run();
    // The API logs each request (at info): the lines the second test reads.
    api = await startTestApi({ ...config, logLevel: 'info' });
    // Every line the API logs, kept here instead of written.
    const stream = (api.logger as unknown as Record<symbol, { write(line: string): void }>)[
      pino.symbols.streamSym
    ];
    assert.ok(stream);
    stream.write = (line: string) => {
      logLines.push(JSON.parse(line));
    };
  });
  after(async () => {
    await api?.close();
    worker?.shutdown();
    await running;
    await worker?.close();
    await stack?.stop();
    await tracing.shutdown();
  });

  it('follows a checkout in one trace: its request, the workflow, the activities, SQL and Stripe', async () => {
    const seller = await createSeller(api);
    const product = await seller.polar.products.create({
      name: 'Traced ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const checkout = await seller.polar.checkouts.create({ products: [product.id] });
    const confirmed = await callV1(
      api,
      null,
      'POST',
      `/v1/checkouts/client/${checkout.clientSecret}/confirm`,
      {
        customer_email: 'traced@example.com',
        customer_name: 'Traced Buyer',
        customer_billing_address: { country: 'FR' },
        confirmation_token_id: 'pm_card_visa',
      },
    );
    assert.equal(confirmed.status, 200);
    const outcome = await api.temporal.workflow
      .getHandle(workflowIds.checkout(checkout.id))
      .result();
    assert.equal(outcome, 'succeeded');

    // The workflow's spans reach the exporter through the worker's sink, just after its end.
    const request = await eventually(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (span) =>
              span.kind === SpanKind.SERVER &&
              /^\/v1\/checkouts\/?$/.test(String(span.attributes['http.route'])),
          ),
      (span) => span !== undefined,
      { what: 'the server span of the checkout creation' },
    );
    assert.ok(request);
    assert.equal(request.name, `POST ${request.attributes['http.route']}`);
    const traceId = request.spanContext().traceId;
    const spans = await eventually(
      () => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId),
      (found) => found.some((span) => span.name === 'RunWorkflow:checkout'),
      { what: "the checkout workflow's span" },
    );
    const spanId = (span: ReadableSpan | undefined) => span?.spanContext().spanId;
    /** What the span is under, from its parent up to the request's span. */
    const above = (span: ReadableSpan) => {
      const chain = ancestry(span, spans);
      assert.equal(spanId(chain.at(-1)), spanId(request), `${span.name} is in the request's trace`);
      return chain.slice(1, -1).map((ancestor) => ancestor.name.split(':', 1)[0]);
    };

    // The charge: Stripe's HTTP call, in its activity, scheduled by the workflow the request started.
    const stripeCall = spans.find(
      (span) =>
        span.kind === SpanKind.CLIENT &&
        String(span.attributes['http.url']).includes('/v1/payment_intents'),
    );
    assert.ok(stripeCall, `a call to Stripe among ${spans.map((span) => span.name)}`);
    assert.deepEqual(above(stripeCall), [
      'RunActivity',
      'StartActivity',
      'RunWorkflow',
      'StartWorkflow',
    ]);
    // SQL of the activities, and of the request itself.
    const queries = spans.filter((span) => span.name.startsWith('pg.query'));
    assert.ok(
      queries.some((query) => above(query).includes('RunActivity')),
      "an activity's SQL is in the trace",
    );
    assert.ok(
      queries.some((query) => !above(query).includes('StartWorkflow')),
      "the request's SQL is in the trace",
    );
  });

  it("answers a failing request's trace id, and its log lines carry it", async () => {
    const seller = await createSeller(api);
    const missing = await fetch(`${api.url}/v1/checkouts/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${seller.token}` },
    });
    assert.equal(missing.status, 404);
    const traceId = missing.headers.get('x-trace-id');
    assert.match(traceId ?? '', /^[0-9a-f]{32}$/);
    const server = exporter
      .getFinishedSpans()
      .find((span) => span.kind === SpanKind.SERVER && span.spanContext().traceId === traceId);
    assert.equal(server?.name, 'GET /v1/checkouts/:id');
    const requestLine = logLines.find(
      (line) => line.msg === 'request' && line.status === 404 && line.trace_id === traceId,
    );
    assert.ok(requestLine, 'the request log line carries the trace id');
    assert.match(String(requestLine.span_id), /^[0-9a-f]{16}$/);
  });
});
