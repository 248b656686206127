import { useState } from 'react';
import { useSignedIn } from '../../auth/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Section } from '../../components/EntityPage';
import { Field } from '../../components/Form';
import { AccountPage } from './AccountPage';
import { accountApi } from './api';

/**
 * Deleting the account, as the server's delete-user flow goes: at once, or (the default) by the
 * link of a mail to the account's address, opened in a browser signed in to it.
 */
export default function DeleteAccountPage() {
  const { user } = useSignedIn().session;
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [mailed, setMailed] = useState(false);

  const confirm = async () => {
    const { message } = await accountApi.deleteAccount(password);
    setPassword('');
    // Deleted at once: the account is gone, and a reload leaves nothing of it in this page.
    if (message === 'User deleted') window.location.assign('/sign-in?deleted=1');
    else setMailed(true);
  };

  return (
    <AccountPage title="Delete account">
      <Section title="Delete your account">
        <p>
          Your user, its sessions, linked accounts and API keys are deleted for good. Organizations
          you belong to stay, with their other members.
        </p>
        {mailed ? (
          <p role="status">
            We sent a link to <strong>{user.email}</strong>. Open it in this browser to delete your
            account.
          </p>
        ) : (
          <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
            Delete account…
          </button>
        )}
      </Section>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete account"
        tone="danger"
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      >
        <p>
          This cannot be undone. Depending on the server, your account is deleted now or once you
          open the link we mail to {user.email}.
        </p>
        <Field
          name="deletePassword"
          label="Password"
          hint="Leave it empty if you sign in only with a social account."
        >
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          )}
        </Field>
      </ConfirmDialog>
    </AccountPage>
  );
}
