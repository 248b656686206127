import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authError, authMessages, codeFromMessage } from './errors.ts';

describe('auth error catalogue', () => {
  it('derives wire codes from messages the way Better Auth clients expect', () => {
    const expected: [string, string][] = [
      ["You can't unlink your last account", 'YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT'],
      ['Invalid callbackURL', 'INVALID_CALLBACKURL'],
      [
        'Session expired. Re-authenticate to perform this action.',
        'SESSION_EXPIRED_REAUTHENTICATE_TO_PERFORM_THIS_ACTION',
      ],
      ['User already exists. Use another email.', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL'],
      ["Verification email isn't enabled", 'VERIFICATION_EMAIL_ISNT_ENABLED'],
    ];
    for (const [message, code] of expected) assert.equal(codeFromMessage(message), code);
  });

  it('builds an error with the refusal, derived code and message', () => {
    const error = authError('unauthenticated', 'INVALID_EMAIL_OR_PASSWORD');
    assert.equal(error.refusal, 'unauthenticated');
    assert.equal(error.code, 'INVALID_EMAIL_OR_PASSWORD');
    assert.equal(error.message, authMessages.INVALID_EMAIL_OR_PASSWORD);
  });
});
