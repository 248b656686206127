import { useState } from 'react';
import { adminApi } from '../pages/admin/api';
import { useSession } from './session';

/**
 * While an admin acts as someone else: whom, and the way back to the admin's own session. Shown
 * on every signed-in page, the organization-less ones too.
 */
export function ImpersonationBanner() {
  const session = useSession();
  const [error, setError] = useState<Error | null>(null);
  if (!session.data?.session.impersonatedBy) return null;
  const { user } = session.data;
  const stop = async () => {
    setError(null);
    try {
      await adminApi.stopImpersonating();
      // Back as the admin, on the user's page, with nothing of the user's left in memory.
      window.location.assign(`/admin/users/${user.id}`);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <section className="banner" aria-label="Impersonation">
      <span>
        You are acting as <strong>{user.name}</strong> ({user.email}).
      </span>
      <button type="button" className="button" onClick={stop}>
        Stop impersonating
      </button>
      {error && <span role="alert">{error.message}</span>}
    </section>
  );
}
