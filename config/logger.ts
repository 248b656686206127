import { pino } from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout; `npm start` routes each process's output to its log file. */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { service: name } });
}
