import type { z } from 'zod';

/** An error the API answers on purpose: its status, a stable code and a message for people. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  /** More fields for the body, answered beside code and message (Better Auth's `details`). */
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export interface ValidationIssue {
  /** Where the bad value was: the request part, then the path inside it. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * A request whose body, query or path parameters do not match the route's schema: 400 under
 * /api/auth (as Better Auth answers), 422 under /v1 (as Polar does); the error middleware picks.
 * `kind` is Polar's error name: schema mismatches are `RequestValidationError`, business rules
 * (a code already taken, a minimum above its maximum) `PolarRequestValidationError`.
 */
export class RequestValidationError extends ApiError {
  override name = 'RequestValidationError';
  readonly issues: ValidationIssue[];
  readonly kind: 'RequestValidationError' | 'PolarRequestValidationError';

  constructor(
    issues: ValidationIssue[],
    kind: RequestValidationError['kind'] = 'RequestValidationError',
  ) {
    const first = issues[0];
    super(
      400,
      'VALIDATION_ERROR',
      first ? `${first.loc.join('.')}: ${first.msg}` : 'Invalid request',
    );
    this.issues = issues;
    this.kind = kind;
  }

  /** The zod issues of one request part, located as Polar locates them (`path`, not params). */
  static fromZod(part: 'body' | 'query' | 'params', issues: z.core.$ZodIssue[]) {
    return new RequestValidationError(
      issues.map((issue) => ({
        loc: [
          part === 'params' ? 'path' : part,
          ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
        ],
        msg: issue.message,
        type: issue.code,
      })),
    );
  }
}

/** A business rule refusing one field of a valid request, e.g. `invalid(['body', 'code'], ...)`. */
export function invalidField(loc: (string | number)[], msg: string, type = 'value_error') {
  return new RequestValidationError([{ loc, msg, type }], 'PolarRequestValidationError');
}
