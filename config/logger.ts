import { pino } from 'pino';
import { traceLogFields } from '../core/trace-context.ts';

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout; `npm start` routes each process's output to its log file.
 * With tracing on, each line written inside a span carries its `trace_id` and `span_id`.
 */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { service: name }, mixin: traceLogFields() });
}
