import { useSignedIn } from '../../auth/session';
import { Section } from '../../components/EntityPage';
import { DeleteAction } from '../catalog/DeleteAction';
import { AccountPage } from './AccountPage';
import { accountApi, accountKeys } from './api';
import { SessionsTable } from './SessionsTable';

/** Where the user is signed in: each session, revoking one, or every one but this browser's. */
export default function SessionsPage() {
  const { session } = useSignedIn();
  return (
    <AccountPage title="Sessions">
      <Section
        title="Where you are signed in"
        actions={
          <DeleteAction
            label="Sign out other sessions"
            run={accountApi.revokeOtherSessions}
            queryKey={accountKeys.sessions}
          >
            Every browser and device signed in to your account, except this one, is signed out.
          </DeleteAction>
        }
      >
        <SessionsTable
          label="Your sessions"
          queryKey={accountKeys.sessions}
          load={accountApi.sessions}
          revoke={(revoked) => accountApi.revokeSession(revoked.token)}
          currentSessionId={session.session.id}
        />
      </Section>
    </AccountPage>
  );
}
