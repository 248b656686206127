import { type BufferedMetricUpdate, MetricsBuffer, Runtime } from '@temporalio/worker';
import { Counter, Gauge, Histogram } from 'prom-client';

/** Seconds: the SDK's durations (schedule-to-start, task latencies) are reported in seconds. */
const durationBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Bridged = {
  labelNames: string[];
  record(labels: Record<string, string>, value: number): void;
};

/**
 * Installs the Temporal runtime of this worker process with its metrics (task slots,
 * schedule-to-start latency, sticky cache, polls, …) buffered, and moves them each second into
 * prom-client metrics of the same names (temporal_…). So they are scraped with the rest from
 * the worker's one metrics endpoint, summed over its processes like the rest (core/metrics.ts),
 * where the SDK's own Prometheus exporter would want a port per process. Call before any
 * NativeConnection; answers a function that moves what is left and stops.
 */
export function installTemporalMetrics(): () => void {
  const buffer = new MetricsBuffer({ useSecondsForDurations: true, maxBufferSize: 100_000 });
  Runtime.install({ telemetryOptions: { metrics: { buffer, attachServiceName: false } } });
  const bridged = new Map<string, Bridged>();
  const move = () => {
    for (const update of buffer.retrieveUpdates()) record(bridged, update);
  };
  const timer = setInterval(move, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    move();
  };
}

function record(
  bridged: Map<string, Bridged>,
  { metric, value, attributes }: BufferedMetricUpdate,
) {
  const labels = Object.fromEntries(
    Object.entries(attributes).map(([name, label]) => [name, String(label)]),
  );
  let target = bridged.get(metric.name);
  if (!target) {
    target = bridge(metric.name, metric.kind, metric.description, Object.keys(labels));
    bridged.set(metric.name, target);
  }
  // A metric keeps the labels it first came with: one missing later is empty, one added dropped.
  const known = Object.fromEntries(target.labelNames.map((name) => [name, labels[name] ?? '']));
  target.record(known, value);
}

function bridge(
  name: string,
  kind: BufferedMetricUpdate['metric']['kind'],
  description: string | undefined,
  labelNames: string[],
): Bridged {
  const options = {
    name: name.startsWith('temporal_') ? name : `temporal_${name}`,
    help: description || `Temporal SDK metric ${name}`,
    labelNames,
  };
  switch (kind) {
    case 'counter': {
      const counter = new Counter(options);
      return { labelNames, record: (labels, value) => counter.inc(labels, value) };
    }
    case 'histogram': {
      const histogram = new Histogram({ ...options, buckets: durationBuckets });
      return { labelNames, record: (labels, value) => histogram.observe(labels, value) };
    }
    case 'gauge': {
      const gauge = new Gauge(options);
      return { labelNames, record: (labels, value) => gauge.set(labels, value) };
    }
    case 'up-down-counter': {
      const gauge = new Gauge(options);
      return { labelNames, record: (labels, value) => gauge.inc(labels, value) };
    }
  }
}
