import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { sessionQueryKey } from '../../auth/session';
import { Section } from '../../components/EntityPage';
import { Form, TextField, useApiForm } from '../../components/Form';
import { CheckboxField } from '../catalog/CheckboxField';
import { AccountPage } from './AccountPage';
import { accountApi, accountKeys } from './api';

/** Changing the password, knowing the current one; other devices may be signed out with it. */
export default function PasswordPage() {
  // Each change starts a fresh form: no password stays typed in the page.
  const [changes, setChanges] = useState(0);
  return (
    <AccountPage title="Password">
      <Section title="Change your password">
        {changes > 0 && <p role="status">Your password is changed.</p>}
        <PasswordForm key={changes} onChanged={() => setChanges((count) => count + 1)} />
        <p className="muted">
          Signed in only with GitHub, Google or Discord? You have no password yet: ask for one with
          “Forgot your password?” on the sign-in page.
        </p>
      </Section>
    </AccountPage>
  );
}

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    { currentPassword: '', newPassword: '', revokeOtherSessions: true },
    accountApi.changePassword,
    {
      onSuccess: async () => {
        // Signing out the others gives this browser a new session too.
        await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
        await queryClient.invalidateQueries({ queryKey: accountKeys.sessions });
        onChanged();
      },
    },
  );
  return (
    <Form form={form} submitLabel="Change password">
      <TextField
        form={form}
        name="currentPassword"
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
      />
      <TextField
        form={form}
        name="newPassword"
        label="New password"
        type="password"
        autoComplete="new-password"
        required
      />
      <CheckboxField form={form} name="revokeOtherSessions" label="Sign out every other device" />
    </Form>
  );
}
