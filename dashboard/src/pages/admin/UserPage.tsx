import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSignedIn } from '../../auth/session';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import type { PageProps } from '../../router';
import { SessionsTable } from '../account/SessionsTable';
import { DeleteAction } from '../catalog/DeleteAction';
import { type AdminUser, adminApi, adminKeys, adminRoles } from './api';
import { isBanned, UserStatus } from './UserStatus';

const back = { to: '/admin/users', label: 'Users' };

const hour = 3600;
/** How long a ban lasts, in seconds; empty: until lifted. */
const banLengths = [
  { value: '', label: 'Until lifted' },
  { value: String(hour), label: '1 hour' },
  { value: String(24 * hour), label: '1 day' },
  { value: String(7 * 24 * hour), label: '7 days' },
  { value: String(30 * 24 * hour), label: '30 days' },
] as const;

/** One user, for the platform's admins: role, ban, sessions and acting as them. */
export default function UserPage({ params }: PageProps) {
  const userId = params.id ?? '';
  const { session } = useSignedIn();
  const user = useQuery({
    queryKey: adminKeys.user(userId),
    queryFn: ({ signal }) => adminApi.getUser(userId, signal),
  });
  if (!user.isSuccess) return <EntityPageFallback title="User" back={back} query={user} />;
  const shown = user.data;
  const isSelf = shown.id === session.user.id;
  return (
    <EntityPage
      title={shown.name}
      subtitle={
        <>
          {shown.email} · <UserStatus user={shown} />
        </>
      }
      back={back}
      actions={!isSelf && <ImpersonateButton user={shown} />}
    >
      <Section title="Details">
        <Details
          items={[
            ['Email verified', shown.emailVerified ? 'yes' : 'no'],
            ['Signed up', <DateTime key="created" value={shown.createdAt} />],
            ['Id', <code key="id">{shown.id}</code>],
          ]}
        />
      </Section>
      {!isSelf && (
        <>
          <Section title="Role">
            <RoleForm key={shown.role} user={shown} />
          </Section>
          <Section title="Ban">
            {isBanned(shown) ? <BanDetails user={shown} /> : <BanForm user={shown} />}
          </Section>
        </>
      )}
      <Section
        title="Sessions"
        actions={
          !isSelf && (
            <DeleteAction
              label="Revoke all sessions"
              run={() => adminApi.revokeSessions(shown.id)}
              queryKey={adminKeys.sessions(shown.id)}
            >
              {shown.email} is signed out everywhere.
            </DeleteAction>
          )
        }
      >
        <SessionsTable
          label={`Sessions of ${shown.email}`}
          queryKey={adminKeys.sessions(shown.id)}
          load={(signal) => adminApi.sessions(shown.id, signal)}
          revoke={(revoked) => adminApi.revokeSession(revoked.token)}
          currentSessionId={session.session.id}
        />
      </Section>
    </EntityPage>
  );
}

/** A change to the user: their page (and the list) show it from the server. */
function useUserChanged(user: AdminUser) {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: adminKeys.users });
    await queryClient.invalidateQueries({ queryKey: adminKeys.user(user.id) });
  };
}

function RoleForm({ user }: { user: AdminUser }) {
  const changed = useUserChanged(user);
  const form = useApiForm(
    { role: user.role || 'user' },
    ({ role }) => adminApi.setRole(user.id, role),
    { onSuccess: changed },
  );
  return (
    <Form form={form} submitLabel="Set role">
      <SelectField
        form={form}
        name="role"
        label="Role"
        hint="Admins manage every user here; users, only their own account."
        options={adminRoles.map((role) => ({ value: role, label: role }))}
        required
      />
    </Form>
  );
}

function BanForm({ user }: { user: AdminUser }) {
  const changed = useUserChanged(user);
  const form = useApiForm(
    { reason: '', length: '' },
    ({ reason, length }) =>
      adminApi.ban(user.id, { reason, expiresInSeconds: length ? Number(length) : undefined }),
    { onSuccess: changed },
  );
  return (
    <Form form={form} submitLabel="Ban user">
      <p className="muted">A banned user cannot sign in, and every session of theirs ends now.</p>
      <TextField form={form} name="reason" label="Reason" hint="Kept with the ban, for admins." />
      <SelectField form={form} name="length" label="For" options={banLengths} required />
    </Form>
  );
}

function BanDetails({ user }: { user: AdminUser }) {
  const changed = useUserChanged(user);
  const [error, setError] = useState<Error | null>(null);
  const unban = async () => {
    setError(null);
    try {
      await adminApi.unban(user.id);
      await changed();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <>
      <Details
        items={[
          ['Reason', user.banReason ?? '—'],
          [
            'Ends',
            user.banExpires ? <DateTime key="ends" value={user.banExpires} /> : 'when lifted',
          ],
        ]}
      />
      {error && <ErrorMessage title="Could not lift the ban" error={error} />}
      <div className="form-actions">
        <button type="button" className="button" onClick={unban}>
          Unban user
        </button>
      </div>
    </>
  );
}

/** Acting as the user: the browser holds one of their sessions until the banner stops it. */
function ImpersonateButton({ user }: { user: AdminUser }) {
  const [error, setError] = useState<Error | null>(null);
  const impersonate = async () => {
    setError(null);
    try {
      await adminApi.impersonate(user.id);
      // A fresh start as them: nothing of the admin's stays on screen or in the cache.
      window.location.assign('/');
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <>
      {error && <ErrorMessage title="Could not impersonate" error={error} />}
      <button type="button" className="button" onClick={impersonate}>
        Impersonate
      </button>
    </>
  );
}
