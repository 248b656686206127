import { createColumnHelper } from '@tanstack/react-table';
import type { PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { type Invitation, invitationsApi, invitationsKey, pageOf } from './api';
import { InvitationActions } from './InvitationActions';
import { InviteForm } from './InviteForm';
import { usePermissions } from './useRole';
import './organization.css';

const column = createColumnHelper<Invitation>();

/** A pending invitation past its expiry is expired, whatever its row still says. */
const statusOf = (invitation: Invitation) =>
  invitation.status === 'pending' && new Date(invitation.expiresAt) <= new Date()
    ? 'expired'
    : invitation.status;

const fetchPage = async (query: PageQuery, signal: AbortSignal) =>
  pageOf(await invitationsApi.list(signal), query, {
    email: (invitation) => invitation.email,
    status: statusOf,
    expires_at: (invitation) => invitation.expiresAt,
  });

export default function InvitationsPage() {
  const permissions = usePermissions();
  const mayCancel = permissions.may({ invitation: ['cancel'] });
  const columns = [
    column.accessor('email', { header: 'Email', enableSorting: true }),
    column.accessor('role', { header: 'Role' }),
    column.accessor(statusOf, {
      id: 'status',
      header: 'Status',
      enableSorting: true,
      cell: (cell) => <StatusBadge status={cell.getValue()} />,
    }),
    column.accessor('expiresAt', {
      id: 'expires_at',
      header: 'Expires',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) =>
        mayCancel && statusOf(cell.row.original) === 'pending' ? (
          <InvitationActions invitation={cell.row.original} />
        ) : null,
    }),
  ];
  return (
    <ResourceListPage
      title="Invitations"
      newForm={
        permissions.may({ invitation: ['create'] }) && {
          title: 'Invite a member',
          form: <InviteForm mayGrantOwner={permissions.isOwner} />,
        }
      }
      section="Sent invitations"
      source={{ queryKey: invitationsKey, fetchPage }}
      columns={columns}
      defaultSorting="-expires_at"
      empty="No invitations sent yet."
    />
  );
}
