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
 * A request whose body, query or params do not match the route's schema: 400 under /api/auth
 * (as Better Auth answers), 422 under /v1 (as Polar does); the error middleware picks.
 */
export class RequestValidationError extends ApiError {
  override name = 'RequestValidationError';
  readonly issues: ValidationIssue[];

  constructor(part: 'body' | 'query' | 'params', issues: z.core.$ZodIssue[]) {
    const described = issues.map((issue) => ({
      loc: [part, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))],
      msg: issue.message,
      type: issue.code,
    }));
    const first = described[0];
    super(
      400,
      'VALIDATION_ERROR',
      first ? `${first.loc.join('.')}: ${first.msg}` : `Invalid request ${part}`,
    );
    this.issues = described;
  }
}
