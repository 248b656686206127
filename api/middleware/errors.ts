import { STATUS_CODES } from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger.ts';
import { AppError, type Refusal, RequestValidationError } from '../../core/errors.ts';
import { redactedPath } from './request-log.ts';

/**
 * Turns every thrown error into JSON in the envelope of the API it came from: the commerce
 * API (/v1) answers Polar's `{error, detail}`, everything else Better Auth's `{code, message}`.
 * An unexpected error answers a bare 500 and is logged with its stack, never sent.
 */
export function errorResponses(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const refused = valueRefusedByDatabase(thrown);
      if (refused) {
        // Bad input that got past validation, not a fault: no stack in the log.
        logger.warn(
          { sqlState: refused, path: redactedPath(ctx.path) },
          'value refused by the database',
        );
      }
      const error = refused ? refusedValueError(ctx.method) : asAppError(thrown);
      const status = statusOf(error);
      if (status >= 500) {
        logger.error({ err: thrown, path: redactedPath(ctx.path) }, 'request failed');
      }
      const commerce = ctx.path.startsWith('/v1/');
      ctx.status = commerce && error instanceof RequestValidationError ? 422 : status;
      if (error.code === '') {
        // A deliberate empty answer (Better Auth's 401 without a session): JSON type, no body.
        ctx.type = 'json';
        ctx.body = '';
        return;
      }
      ctx.body = commerce ? commerceEnvelope(error) : authEnvelope(error);
    }
  };
}

/** The status each refusal answers with, under /v1 and /api/auth alike. */
const refusalStatus: Record<Refusal, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  not_linked: 417,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
};

/** Koa's own client errors (a body too large, malformed JSON), answered with their status. */
class KoaClientError extends AppError {
  override name = 'KoaClientError';
  readonly status: number;

  constructor(status: number, code: string, message: string) {
    super('invalid', code, message);
    this.status = status;
  }
}

function statusOf(error: AppError): number {
  return error instanceof KoaClientError ? error.status : refusalStatus[error.refusal];
}

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22) that only input causes: a value too long for
 * its column, a number out of range, a malformed date, number or id, a NUL byte.
 */
const inputDataExceptions = new Set([
  '22001',
  '22003',
  '22007',
  '22008',
  '22021',
  '22P02',
  '22P05',
]);

/** The SQLSTATE of a database error that refused a value of the request, else null. */
function valueRefusedByDatabase(thrown: unknown): string | null {
  const state = (thrown as { code?: unknown } | null)?.code;
  return typeof state === 'string' && inputDataExceptions.has(state) ? state : null;
}

function refusedValueError(method: string) {
  const part = ['POST', 'PUT', 'PATCH'].includes(method) ? 'body' : 'query';
  return new RequestValidationError([
    {
      loc: [part],
      msg: 'A value is too long, out of range, or not in a form that can be stored.',
      type: 'value_error',
    },
  ]);
}

function asAppError(thrown: unknown): AppError {
  if (thrown instanceof AppError) return thrown;
  // Koa's own errors (a body too large, malformed JSON) carry a client status worth keeping.
  const status = (thrown as { status?: unknown } | null)?.status;
  const exposed = (thrown as { expose?: unknown } | null)?.expose === true;
  if (typeof status === 'number' && status >= 400 && status < 500 && exposed) {
    // 413 Payload Too Large becomes PAYLOAD_TOO_LARGE, and so on.
    const code = (STATUS_CODES[status] ?? 'Bad Request').toUpperCase().replace(/\W+/g, '_');
    return new KoaClientError(status, code, (thrown as Error).message);
  }
  return new AppError('internal', 'INTERNAL_SERVER_ERROR', 'Internal server error');
}

function authEnvelope(error: AppError) {
  if (error instanceof RequestValidationError) {
    return { code: error.code, message: error.message, details: error.issues };
  }
  return {
    code: error.code,
    message: error.message,
    ...(error.details && { details: error.details }),
  };
}

function commerceEnvelope(error: AppError) {
  if (error instanceof RequestValidationError) {
    return { error: error.kind, detail: error.issues };
  }
  return { error: error.code, detail: error.message, ...error.details };
}
