/**
 * Where the invitation mail's link leads: /accept-invitation/<id>?token=<signed token>. The
 * signed-in invitee sees who invites them to which organization as what, and accepts or
 * declines; a signed-out visitor signs in or up first and comes back here (App.tsx). Shown
 * outside the dashboard's frame: the invitee may belong to no organization yet.
 *
 * The token goes with the answer: it proves the invitee reads mail at the invited address, as a
 * verification link would. Without it (a link typed from memory) the server wants a verified
 * email, and says so.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import {
  acceptInvitation,
  getInvitation,
  type ReceivedInvitation,
  rejectInvitation,
} from '../api/auth';
import { ApiError } from '../api/client';
import { DateTime } from '../components/DateTime';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link, navigate, type PageProps, useSearch } from '../router';
import { useSession, useSignOut, useSwitchOrganization } from './session';

const askForAnother =
  'It may have expired, been canceled or been answered already: ask whoever invited you to send a new one.';

/** What the invitee can do about each refusal the server explains (its message says what). */
const waysOut: Record<string, string> = {
  INVITATION_NOT_FOUND: askForAnother,
  INVITATION_NOT_FOUND_EXCLAIMED: askForAnother,
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION:
    'It was sent to another address: sign out, then sign in with that one.',
  EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION:
    'Open the link in the invitation email itself, or verify your email address first.',
};

export default function AcceptInvitationPage({ params }: PageProps) {
  const invitationId = params.id ?? '';
  const token = new URLSearchParams(useSearch()).get('token') ?? undefined;
  const switchOrganization = useSwitchOrganization();
  const invitation = useQuery({
    queryKey: ['auth', 'invitation', invitationId],
    queryFn: ({ signal }) => getInvitation(invitationId, signal),
  });
  const accept = useMutation({
    mutationFn: async ({ organizationId }: ReceivedInvitation) => {
      await acceptInvitation({ invitationId, token });
      await switchOrganization(organizationId);
    },
    onSuccess: () => navigate('/', { replace: true }),
  });
  const decline = useMutation({ mutationFn: () => rejectInvitation({ invitationId, token }) });

  // Joining resets every query, this invitation's too (now answered): it is not shown again.
  if (accept.isPending || accept.isSuccess) {
    return <Card title="Joining the organization…" />;
  }
  if (invitation.isError) {
    return (
      <Card title="Invitation">
        <Refusal title="This invitation cannot be opened" error={invitation.error} />
      </Card>
    );
  }
  if (!invitation.data) return <Card title="Loading the invitation…" />;
  const { organizationName, role, inviterEmail, expiresAt } = invitation.data;
  if (decline.isSuccess) {
    return (
      <Card title="Invitation declined">
        <p>You will not join {organizationName}.</p>
        <p className="auth-links">
          <Link to="/">Go to the dashboard</Link>
        </p>
      </Card>
    );
  }
  const answering = accept.isPending || decline.isPending;
  return (
    <Card title={`Join ${organizationName}`}>
      <p>
        {inviterEmail} invites you to join <strong>{organizationName}</strong> on Tollgate.
      </p>
      <div className="form">
        <dl className="details">
          <div>
            <dt>Organization</dt>
            <dd>{organizationName}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{role}</dd>
          </div>
          <div>
            <dt>Invited by</dt>
            <dd>{inviterEmail}</dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>
              <DateTime value={expiresAt} />
            </dd>
          </div>
        </dl>
        {accept.error && <Refusal title="Could not accept the invitation" error={accept.error} />}
        {decline.error && (
          <Refusal title="Could not decline the invitation" error={decline.error} />
        )}
        <div className="form-actions">
          <button
            type="button"
            className="button button-primary"
            disabled={answering}
            onClick={() => accept.mutate(invitation.data)}
          >
            Accept
          </button>
          <button
            type="button"
            className="button"
            disabled={answering}
            onClick={() => decline.mutate()}
          >
            Decline
          </button>
        </div>
      </div>
    </Card>
  );
}

/** The server's message, what to do about it, and a way to switch accounts. */
function Refusal({ title, error }: { title: string; error: Error }) {
  const session = useSession();
  const signOut = useSignOut();
  const wayOut = error instanceof ApiError ? waysOut[error.code] : undefined;
  return (
    <ErrorMessage title={title} error={error}>
      {wayOut && <p>{wayOut}</p>}
      <p className="muted">Signed in as {session.data?.user.email}.</p>
      <button type="button" className="button" onClick={signOut}>
        Sign out
      </button>
    </ErrorMessage>
  );
}

function Card({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <p className="brand auth-brand">Tollgate</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
