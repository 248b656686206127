import { ApplicationFailure } from '@temporalio/common';
import {
  AppError,
  type Refusal,
  RequestValidationError,
  type ValidationIssue,
} from '../core/errors.ts';

/**
 * The failure type that carries a refusal through Temporal (activity → workflow → caller); its
 * name predates AppError and stays, as recorded histories spell it.
 */
export const refusalFailureType = 'ApiError';

/** What survives of an AppError in a failure's details: enough to answer the same response. */
interface CarriedRefusal {
  refusal: Refusal;
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
  validation?: { issues: ValidationIssue[]; kind: RequestValidationError['kind'] } | undefined;
}

/**
 * For an activity's catch: a refusal the API would answer (an AppError) becomes a non-retryable
 * failure that carries its refusal and body, so the caller of the update answers the same 4xx;
 * anything else is rethrown unchanged, so Temporal retries it.
 */
export function toActivityFailure(error: unknown): never {
  if (!(error instanceof AppError)) throw error;
  throw refusalFailure(error);
}

/**
 * A refusal as a non-retryable failure: thrown by an activity (see toActivityFailure) or by
 * a workflow's update validator refusing a request outright.
 */
export function refusalFailure(error: AppError): ApplicationFailure {
  const carried: CarriedRefusal = {
    refusal: error.refusal,
    code: error.code,
    message: error.message,
    details: error.details,
    validation:
      error instanceof RequestValidationError
        ? { issues: error.issues, kind: error.kind }
        : undefined,
  };
  return ApplicationFailure.nonRetryable(error.message, refusalFailureType, carried);
}

/**
 * The reverse, for routes that call executeUpdate or result(): the AppError carried anywhere in
 * the failure's cause chain (update failed ← activity failed ← application failure), or
 * undefined when the failure is not one the API answers on purpose.
 */
export function refusalFromWorkflowFailure(error: unknown): AppError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === refusalFailureType) {
      const carried = cause.details?.[0] as CarriedRefusal | undefined;
      if (!carried) return undefined;
      if (carried.validation) {
        return new RequestValidationError(carried.validation.issues, carried.validation.kind);
      }
      return new AppError(carried.refusal, carried.code, carried.message, carried.details);
    }
  }
  return undefined;
}
