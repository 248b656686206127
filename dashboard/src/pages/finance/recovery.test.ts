import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actionOutcome, recoveredLabel, retryOutcome } from './recovery.ts';

describe('failed renewal recovery in words', () => {
  const declined = {
    status: 'failed' as const,
    decline_code: 'insufficient_funds',
    decline_reason: 'The card has insufficient funds.',
  };

  it('says a paid retry plainly', () => {
    assert.equal(
      retryOutcome({
        status: 'active',
        retry_result: {
          ...declined,
          status: 'succeeded',
          decline_code: null,
          decline_reason: null,
        },
      }),
      'The retry was paid: the subscription is active again.',
    );
  });

  it('gives a declined retry’s readable reason, never the code, and that retries go on', () => {
    const text = retryOutcome({ status: 'past_due', retry_result: declined });
    assert.equal(
      text,
      'The retry was declined. The card has insufficient funds. The subscription stays past due; scheduled retries go on as planned.',
    );
    assert.ok(!text.includes('insufficient_funds'));
  });

  it('says when the bank gave no reason, or asks for authentication', () => {
    assert.match(
      retryOutcome({ status: 'unpaid', retry_result: { ...declined, decline_reason: null } }),
      /^The retry was declined\. The bank gave no reason\. The subscription stays unpaid;/,
    );
    assert.match(
      retryOutcome({
        status: 'past_due',
        retry_result: { ...declined, status: 'requires_action' },
      }),
      /authenticate/,
    );
    assert.match(
      retryOutcome({ status: 'past_due', retry_result: { ...declined, status: 'processing' } }),
      /being processed/,
    );
  });

  it('falls back on the status when the answer has no retry result', () => {
    assert.equal(
      retryOutcome({ status: 'active' }),
      'The retry was paid: the subscription is active again.',
    );
    assert.equal(
      retryOutcome({ status: 'past_due', retry_result: null }),
      'The retry was declined again: the subscription is past due.',
    );
  });

  it('names who recovered a renewal', () => {
    assert.equal(recoveredLabel('customer'), 'Recovered by the customer');
    assert.equal(recoveredLabel('finance'), 'Recovered by finance');
    assert.equal(recoveredLabel('dunning'), 'Recovered by a scheduled retry');
    assert.equal(recoveredLabel(null), null);
  });

  it('says what each of finance’s actions did', () => {
    assert.equal(
      actionOutcome('update_card_link', { sent_to: 'ada@example.com' }),
      'The update-card link was mailed to ada@example.com: paying with a new card there settles the renewal.',
    );
    assert.equal(
      actionOutcome('retry', { status: 'past_due', retry_result: declined }),
      retryOutcome({ status: 'past_due', retry_result: declined }),
    );
    assert.equal(
      actionOutcome('resolve', { status: 'active' }),
      'Marked resolved: the subscription is active again.',
    );
    assert.equal(actionOutcome('cancel', { status: 'canceled' }), 'The subscription is canceled.');
  });
});
