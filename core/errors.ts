import type { z } from 'zod';

/**
 * How the product refuses a request, said without HTTP: each API maps a refusal to its own
 * status (api/middleware/errors.ts), and a workflow carries it through Temporal unchanged.
 */
export type Refusal =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'not_linked'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal';

/** An error the product answers on purpose: how it refuses, a stable code, a message for people. */
export class AppError extends Error {
  override name = 'AppError';
  readonly refusal: Refusal;
  readonly code: string;
  /** More fields for the body, answered beside code and message (Better Auth's `details`). */
  readonly details: Record<string, unknown> | undefined;

  constructor(refusal: Refusal, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.refusal = refusal;
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
export class RequestValidationError extends AppError {
  override name = 'RequestValidationError';
  readonly issues: ValidationIssue[];
  readonly kind: 'RequestValidationError' | 'PolarRequestValidationError';

  constructor(
    issues: ValidationIssue[],
    kind: RequestValidationError['kind'] = 'RequestValidationError',
  ) {
    const first = issues[0];
    super(
      'invalid',
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
