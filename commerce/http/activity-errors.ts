import { ApplicationFailure } from '@temporalio/common';
import { ApiError, RequestValidationError, type ValidationIssue } from '../../api/errors.ts';

/** The failure type that carries an API error through Temporal (activity → workflow → caller). */
export const apiErrorFailureType = 'ApiError';

/** What survives of an ApiError in a failure's details: enough to answer the same response. */
interface ApiErrorDetails {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
  validation?: { issues: ValidationIssue[]; kind: RequestValidationError['kind'] } | undefined;
}

/**
 * For an activity's catch: a refusal the API would answer (an ApiError) becomes a non-retryable
 * failure that carries its status and body, so the caller of the update answers the same 4xx;
 * anything else is rethrown unchanged, so Temporal retries it.
 */
export function toActivityFailure(error: unknown): never {
  if (!(error instanceof ApiError)) throw error;
  throw apiErrorFailure(error);
}

/**
 * An API error as a non-retryable failure: thrown by an activity (see toActivityFailure) or by
 * a workflow's update validator refusing a request outright.
 */
export function apiErrorFailure(error: ApiError): ApplicationFailure {
  const carried: ApiErrorDetails = {
    status: error.status,
    code: error.code,
    message: error.message,
    details: error.details,
    validation:
      error instanceof RequestValidationError
        ? { issues: error.issues, kind: error.kind }
        : undefined,
  };
  return ApplicationFailure.nonRetryable(error.message, apiErrorFailureType, carried);
}

/**
 * The reverse, for routes that call executeUpdate or result(): the ApiError carried anywhere in
 * the failure's cause chain (update failed ← activity failed ← application failure), or
 * undefined when the failure is not one the API answers on purpose.
 */
export function apiErrorFromWorkflowFailure(error: unknown): ApiError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === apiErrorFailureType) {
      const carried = cause.details?.[0] as ApiErrorDetails | undefined;
      if (!carried) return undefined;
      if (carried.validation) {
        return new RequestValidationError(carried.validation.issues, carried.validation.kind);
      }
      return new ApiError(carried.status, carried.code, carried.message, carried.details);
    }
  }
  return undefined;
}
