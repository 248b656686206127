import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSignedIn } from '../../auth/session';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { type Member, membersApi, membersKey, organizationKey } from './api';
import { MemberRole } from './MemberRole';
import { usePermissions } from './useRole';

const column = createColumnHelper<Member>();
const isOwner = (member: Member) => member.role.split(',').includes('owner');

export default function MembersPage() {
  const { session } = useSignedIn();
  const permissions = usePermissions();
  const owners = useQuery({
    queryKey: [...membersKey, 'owners'],
    queryFn: ({ signal }) => membersApi.ownerCount(signal),
  });
  // Owners are changed and removed by owners only, and the last owner stays one.
  const mayTouch = (member: Member) =>
    !isOwner(member) || (permissions.isOwner && (owners.data ?? 0) > 1);

  const columns = [
    column.accessor((member) => member.user.name, {
      id: 'name',
      header: 'Name',
      cell: (cell) => (
        <>
          {cell.getValue()}
          {cell.row.original.userId === session.user.id && <span className="muted"> (you)</span>}
        </>
      ),
    }),
    column.accessor((member) => member.user.email, { id: 'email', header: 'Email' }),
    column.accessor('role', {
      header: 'Role',
      enableSorting: true,
      cell: (cell) => (
        <MemberRole
          member={cell.row.original}
          editable={permissions.may({ member: ['update'] }) && mayTouch(cell.row.original)}
          mayGrantOwner={permissions.isOwner}
        />
      ),
    }),
    column.accessor('createdAt', {
      id: 'created_at',
      header: 'Joined',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) => {
        const member = cell.row.original;
        if (!permissions.may({ member: ['delete'] }) || !mayTouch(member)) return null;
        return (
          <DeleteAction
            label="Remove member"
            run={() => membersApi.remove(member.id)}
            queryKey={organizationKey}
          >
            {member.user.email} loses access to this organization and leaves its teams.
          </DeleteAction>
        );
      },
    }),
  ];

  return (
    <ResourceListPage
      title="Members"
      actions={
        permissions.may({ invitation: ['create'] }) && (
          <Link to="/organization/invitations" className="button button-primary">
            Invite a member
          </Link>
        )
      }
      source={{ queryKey: membersKey, fetchPage: membersApi.list }}
      columns={columns}
      defaultSorting="created_at"
    />
  );
}
