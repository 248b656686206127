import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { User } from '../../api/auth';
import { sessionQueryKey, useSignedIn } from '../../auth/session';
import { Section } from '../../components/EntityPage';
import { Form, TextField, useApiForm } from '../../components/Form';
import { StatusBadge } from '../../components/StatusBadge';
import { AccountPage } from './AccountPage';
import { accountApi } from './api';

/** The signed-in user's name and picture, and their email address. */
export default function ProfilePage() {
  const { user } = useSignedIn().session;
  return (
    <AccountPage title="Profile">
      <Section title="Name and picture">
        <ProfileForm user={user} />
      </Section>
      <Section title="Email address">
        <EmailForm user={user} />
      </Section>
    </AccountPage>
  );
}

/** The session answers the user: once it changes there, the dashboard shows the change. */
function useRefreshSession() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: sessionQueryKey });
}

function ProfileForm({ user }: { user: User }) {
  const refreshSession = useRefreshSession();
  const [saved, setSaved] = useState(false);
  const form = useApiForm(
    { name: user.name, image: user.image ?? '' },
    ({ name, image }) => accountApi.updateProfile({ name, image: image.trim() || null }),
    {
      onSuccess: async () => {
        setSaved(true);
        await refreshSession();
      },
    },
  );
  return (
    <Form form={form} submitLabel="Save profile">
      {saved && <p role="status">Your profile is saved.</p>}
      <TextField form={form} name="name" label="Name" autoComplete="name" required />
      <TextField
        form={form}
        name="image"
        label="Picture"
        type="url"
        hint="The address of an image (https://…); leave empty for none."
      />
    </Form>
  );
}

function EmailForm({ user }: { user: User }) {
  const refreshSession = useRefreshSession();
  const [changed, setChanged] = useState<string | null>(null);
  const form = useApiForm({ newEmail: '' }, ({ newEmail }) => accountApi.changeEmail(newEmail), {
    onSuccess: async () => {
      setChanged(form.values.newEmail);
      // An unverified address changes at once; a verified one only once confirmed by mail.
      if (!user.emailVerified) await refreshSession();
    },
  });
  return (
    <>
      <p>
        {user.email}{' '}
        {user.emailVerified ? (
          <StatusBadge tone="ok">verified</StatusBadge>
        ) : (
          <StatusBadge tone="warning">not verified</StatusBadge>
        )}
      </p>
      {changed && (
        <p role="status">
          {user.emailVerified
            ? `We sent a link to ${user.email}: open it to confirm the move to ${changed}.`
            : `Your address is now ${changed}: open the link we sent there to verify it.`}
        </p>
      )}
      <Form form={form} submitLabel="Change email">
        <TextField
          form={form}
          name="newEmail"
          label="New email address"
          type="email"
          autoComplete="email"
          required
        />
      </Form>
    </>
  );
}
