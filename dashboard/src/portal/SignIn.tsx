import { type FormEvent, useEffect, useState } from 'react';
import { getOrganization, requestSignIn } from './api';
import { problemOf } from './resource';

interface SignInProps {
  organizationSlug: string;
  /** Why the customer is asked to sign in again (an expired session or link). */
  reason: string | null;
}

/**
 * The organization's portal sign-in: the customer types their email and is mailed a one-time
 * link (the answer does not say whether the email is known).
 */
export function SignIn({ organizationSlug, reason }: SignInProps) {
  // The name is shown when the storefront answers; signing in needs only the slug.
  const [organizationName, setOrganizationName] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    getOrganization(organizationSlug).then(
      (found) => setOrganizationName(found.organization.name),
      () => setOrganizationName(null),
    );
  }, [organizationSlug]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const typed = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(typed)) {
      setProblem('Enter the email address you bought with.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await requestSignIn(
        typed,
        organizationSlug,
        `/portal/${encodeURIComponent(organizationSlug)}`,
      );
      setSentTo(typed);
    } catch (error) {
      setProblem(
        (error as { status?: number }).status === 404
          ? 'This portal does not exist. Check the address.'
          : problemOf(error, 'The link could not be sent. Try again later.'),
      );
    } finally {
      setBusy(false);
    }
  }

  const seller = organizationName ?? 'this shop';
  return (
    <main className="portal-signin">
      {organizationName && <p className="organization">{organizationName}</p>}
      <h1>Sign in to your purchases</h1>
      {sentTo ? (
        <div role="status">
          <h2>Check your mail</h2>
          <p>
            If <strong>{sentTo}</strong> has purchases from {seller}, a sign-in link is on its way.
            It works once, for 15 minutes.
          </p>
          <button type="button" className="secondary" onClick={() => setSentTo(null)}>
            Use another email
          </button>
        </div>
      ) : (
        <form className="portal-form" onSubmit={submit} noValidate>
          {reason && (
            <p className="banner-error" role="alert">
              {reason}
            </p>
          )}
          <div className="field">
            <label htmlFor="signin-email">Email</label>
            <input
              id="signin-email"
              type="email"
              autoComplete="email"
              required
              value={email}
              aria-invalid={Boolean(problem)}
              aria-describedby={problem ? 'signin-email-error' : 'signin-email-hint'}
              onChange={(event) => setEmail(event.target.value)}
            />
            <p className="field-hint" id="signin-email-hint">
              We’ll email you a link to sign in; no password needed.
            </p>
            {problem && (
              <p className="field-error" id="signin-email-error" role="alert">
                {problem}
              </p>
            )}
          </div>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Sending…' : 'Email me a sign-in link'}
          </button>
        </form>
      )}
    </main>
  );
}
