import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { commerceError } from '../commerce/errors.ts';
import { AppError, invalidField, RequestValidationError } from '../core/errors.ts';
import { refusalFromWorkflowFailure, toActivityFailure } from './activity-errors.ts';

/** The failure an activity's catch throws, as the caller of an update sees it: wrapped. */
function asSeenByCaller(error: unknown): Error {
  try {
    toActivityFailure(error);
  } catch (failure) {
    assert.ok(failure instanceof ApplicationFailure);
    return new ActivityFailure(
      'activity failed',
      'confirmCheckout',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      undefined,
      failure,
    );
  }
  assert.fail('toActivityFailure returned');
}

describe('Refusals through Temporal failures', () => {
  it('carries a refusal to the caller: non-retryable, same refusal, name and detail', () => {
    let failure: unknown;
    try {
      toActivityFailure(commerceError('NotOpenCheckout'));
    } catch (thrown) {
      failure = thrown;
    }
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.nonRetryable, true);
    const error = refusalFromWorkflowFailure(asSeenByCaller(commerceError('NotOpenCheckout')));
    assert.ok(error instanceof AppError);
    assert.deepEqual(
      [error.refusal, error.code, error.message],
      ['forbidden', 'NotOpenCheckout', 'Checkout is not open.'],
    );
  });

  it('keeps a 422 a validation error, with its located issues', () => {
    const refused = invalidField(['body', 'customer_email'], 'Field required', 'missing');
    const error = refusalFromWorkflowFailure(asSeenByCaller(refused));
    assert.ok(error instanceof RequestValidationError);
    assert.equal(error.kind, 'PolarRequestValidationError');
    assert.deepEqual(error.issues, refused.issues);
  });

  it('rethrows anything else unchanged, for Temporal to retry', () => {
    const outage = new Error('connection refused');
    assert.throws(
      () => toActivityFailure(outage),
      (thrown) => thrown === outage,
    );
    assert.equal(refusalFromWorkflowFailure(outage), undefined);
    assert.equal(
      refusalFromWorkflowFailure(ApplicationFailure.nonRetryable('boom', 'SomethingElse')),
      undefined,
    );
  });
});
