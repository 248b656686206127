import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link } from '../../router';
import { type AdminUser, adminApi, adminKeys } from './api';
import { UserStatus } from './UserStatus';

const column = createColumnHelper<AdminUser>();

// Column ids are list-users' sortBy fields.
const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => <Link to={`/admin/users/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('email', { header: 'Email', enableSorting: true }),
  column.accessor('role', {
    header: 'Role',
    enableSorting: true,
    cell: (cell) => cell.getValue() || 'user',
  }),
  column.display({
    id: 'status',
    header: 'Status',
    cell: (cell) => <UserStatus user={cell.row.original} />,
  }),
  column.accessor('createdAt', {
    header: 'Signed up',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

/** Every user of the platform, for its admins: searched by email, a page at a time. */
export default function UsersPage() {
  return (
    <ResourceListPage
      title="Users"
      source={{ queryKey: adminKeys.users, fetchPage: adminApi.listUsers }}
      columns={columns}
      filters={[{ name: 'email', label: 'Email contains', type: 'search' }]}
      defaultSorting="-createdAt"
      empty="No users match."
    />
  );
}
