import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  confirmAccountDeletion,
  confirmEmailChange,
  escapeHtml,
  resetPassword,
  verifyEmail,
} from './templates.ts';

const url = 'https://tollgate.example/api/auth/verify-email?token=abc123&callbackURL=%2F';

describe('mail templates', () => {
  const mails = {
    verifyEmail: verifyEmail({ url }),
    resetPassword: resetPassword({ url }),
    confirmAccountDeletion: confirmAccountDeletion({ url }),
    confirmEmailChange: confirmEmailChange({ url, newEmail: 'new@example.com' }),
  };

  for (const [name, mail] of Object.entries(mails)) {
    it(`${name} has a subject and carries the link in its text and its HTML`, () => {
      assert.ok(mail.subject.length > 0);
      assert.ok(mail.text.includes(`\n${url}\n`), 'the link on a line of its own in the text');
      assert.ok(mail.html.includes(`<a href="${escapeHtml(url)}">`), 'the link as an anchor');
      assert.doesNotMatch(mail.html, /&(?!amp;|lt;|gt;|quot;|#39;)/, 'every & is escaped');
    });
  }

  it('escapes what the caller passes in, so it cannot add markup or leave an attribute', () => {
    const hostile = 'https://x.example/?a="><script>alert(1)</script>&b=\'';
    const mail = confirmEmailChange({
      url: hostile,
      newEmail: '<img src=x onerror=alert(1)>@x.io',
    });
    assert.doesNotMatch(mail.html, /<script|<img/);
    assert.ok(mail.html.includes('href="https://x.example/?a=&quot;&gt;&lt;script&gt;'));
    assert.ok(mail.html.includes('&lt;img src=x onerror=alert(1)&gt;@x.io'));
    // The text part is plain text: it carries both as they are.
    assert.ok(mail.text.includes(hostile));
    assert.ok(mail.text.includes('<img src=x onerror=alert(1)>@x.io'));
  });

  it('names the new address in the change-email confirmation', () => {
    assert.match(mails.confirmEmailChange.text, /to new@example\.com\./);
    assert.match(mails.confirmEmailChange.html, /to new@example\.com\./);
  });

  it('escapes the five characters that matter in HTML', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
