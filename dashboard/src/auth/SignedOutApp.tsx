/**
 * What a signed-out visitor sees: sign-in (with email or a configured social provider),
 * sign-up, the forgotten-password request and the reset form mailed links open. Loaded only
 * when nobody is signed in. Signing in or up leads back to the page that sent the visitor here
 * (`?next=`, auth/session.ts), and the sign-in and sign-up pages keep it between them.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  getSocialProviders,
  providerName,
  requestPasswordReset,
  resetPassword,
  signIn,
  signInSocial,
  signUp,
  socialProvidersQueryKey,
} from '../api/auth';
import { Form, TextField, useApiForm } from '../components/Form';
import { Link, navigate, usePathname, useSearch } from '../router';
import { returnPathOf, sessionQueryKey, withReturn } from './session';

const emailInput = { label: 'Email', type: 'email', autoComplete: 'email', required: true };
const passwordInput = (autoComplete: 'current-password' | 'new-password') => ({
  label: 'Password',
  type: 'password',
  autoComplete,
  required: true,
});

/** The page to come back to once signed in. */
const useReturnPath = () => returnPathOf(useSearch());

export default function SignedOutApp() {
  const pathname = usePathname();
  const invited = useReturnPath().startsWith('/accept-invitation/');
  const page =
    pathname === '/sign-up' ? (
      <SignUp />
    ) : pathname === '/forgot-password' ? (
      <ForgotPassword />
    ) : pathname === '/reset-password' ? (
      <ResetPassword />
    ) : (
      <SignIn />
    );
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <p className="brand auth-brand">Tollgate</p>
        {invited && (
          <p className="muted">
            You are invited to join an organization. Sign in, or create an account, with the address
            the invitation was sent to.
          </p>
        )}
        {page}
      </div>
    </main>
  );
}

/** Signed in: the session query answers the user now, and the dashboard takes over. */
function useSignedInNow() {
  const queryClient = useQueryClient();
  const returnPath = useReturnPath();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    navigate(returnPath, { replace: true });
  };
}

function SignIn() {
  const returnPath = useReturnPath();
  const signedIn = useSignedInNow();
  // Where the mailed link confirming an account's deletion leads (pages/account/api.ts).
  const deleted = new URLSearchParams(useSearch()).has('deleted');
  const form = useApiForm({ email: '', password: '' }, (values) => signIn(values, returnPath), {
    onSuccess: signedIn,
  });
  return (
    <>
      <h1>Sign in</h1>
      {deleted && <p role="status">Your account is deleted.</p>}
      <Form form={form} submitLabel="Sign in">
        <TextField form={form} name="email" {...emailInput} />
        <TextField form={form} name="password" {...passwordInput('current-password')} />
      </Form>
      <SocialButtons />
      <p className="auth-links">
        <Link to="/forgot-password">Forgot your password?</Link>
        <Link to={withReturn('/sign-up', returnPath)}>Create an account</Link>
      </p>
    </>
  );
}

/**
 * A button per provider the server is configured for (GET /api/auth/providers); none while
 * that answer is on its way, or when it fails: email and password still work.
 */
function SocialButtons() {
  const returnPath = useReturnPath();
  const [error, setError] = useState<Error | null>(null);
  const configured = useQuery({
    queryKey: socialProvidersQueryKey,
    queryFn: ({ signal }) => getSocialProviders(signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const providers = configured.data?.providers ?? [];
  if (providers.length === 0) return null;
  const start = async (provider: string) => {
    try {
      const { url } = await signInSocial(provider, returnPath);
      window.location.assign(url);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <div className="social-buttons">
      {error && (
        <div className="error-message" role="alert">
          {error.message}
        </div>
      )}
      {providers.map((provider) => (
        <button key={provider} type="button" className="button" onClick={() => start(provider)}>
          Continue with {providerName(provider)}
        </button>
      ))}
    </div>
  );
}

function SignUp() {
  const returnPath = useReturnPath();
  const signedIn = useSignedInNow();
  const [mailed, setMailed] = useState(false);
  const form = useApiForm(
    { name: '', email: '', password: '' },
    (values) => signUp(values, returnPath),
    {
      // Without a session the server requires a verified email first: its link is on its way.
      onSuccess: (answer) => (answer.token ? signedIn() : setMailed(true)),
    },
  );
  if (mailed) {
    return (
      <>
        <h1>Check your email</h1>
        <p>
          We sent a link to <strong>{form.values.email}</strong>. Open it to verify your address,
          then <Link to={withReturn('/sign-in', returnPath)}>sign in</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Create your account</h1>
      <Form form={form} submitLabel="Create account">
        <TextField form={form} name="name" label="Name" autoComplete="name" required />
        <TextField form={form} name="email" {...emailInput} />
        <TextField form={form} name="password" {...passwordInput('new-password')} />
      </Form>
      <p className="auth-links">
        <Link to={withReturn('/sign-in', returnPath)}>Already have an account? Sign in</Link>
      </p>
    </>
  );
}

function ForgotPassword() {
  const [sent, setSent] = useState(false);
  const form = useApiForm({ email: '' }, ({ email }) => requestPasswordReset(email), {
    onSuccess: () => setSent(true),
  });
  return (
    <>
      <h1>Reset your password</h1>
      {sent ? (
        <p role="status">If an account uses {form.values.email}, a reset link is on its way.</p>
      ) : (
        <Form form={form} submitLabel="Send reset link">
          <TextField form={form} name="email" {...emailInput} />
        </Form>
      )}
      <p className="auth-links">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </>
  );
}

/** Opened from the mailed link: /reset-password?token=… (or ?error=INVALID_TOKEN). */
function ResetPassword() {
  const query = new URLSearchParams(useSearch());
  const token = query.get('token');
  const [done, setDone] = useState(false);
  const form = useApiForm(
    { newPassword: '' },
    ({ newPassword }) => resetPassword({ token: token ?? '', newPassword }),
    { onSuccess: () => setDone(true) },
  );
  if (!token) {
    return (
      <>
        <h1>Reset your password</h1>
        <p role="alert">This reset link is invalid or has expired.</p>
        <p className="auth-links">
          <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Choose a new password</h1>
      {done ? (
        <p role="status">
          Your password is changed. <Link to="/sign-in">Sign in</Link>
        </p>
      ) : (
        <Form form={form} submitLabel="Change password">
          <TextField
            form={form}
            name="newPassword"
            {...passwordInput('new-password')}
            label="New password"
          />
        </Form>
      )}
    </>
  );
}
