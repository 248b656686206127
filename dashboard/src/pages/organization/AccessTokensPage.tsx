import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { DeleteAction } from '../catalog/DeleteAction';
import { type AccessToken, tokensApi, tokensKey } from './api';
import { NewTokenForm } from './NewTokenForm';
import { usePermissions } from './useRole';

const column = createColumnHelper<AccessToken>();

const columns = [
  column.accessor('comment', { header: 'Name', enableSorting: true }),
  column.accessor('scopes', {
    header: 'Scopes',
    cell: (cell) => cell.getValue().join(', '),
  }),
  column.accessor('expires_at', {
    header: 'Expires',
    cell: (cell) => (cell.getValue() ? <DateTime value={cell.getValue()} /> : 'Never'),
  }),
  column.accessor('last_used_at', {
    header: 'Last used',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.display({
    id: 'actions',
    header: () => <span className="visually-hidden">Actions</span>,
    cell: (cell) => (
      <DeleteAction
        label="Delete token"
        run={() => tokensApi.delete(cell.row.original.id)}
        queryKey={tokensKey}
      >
        Whatever uses “{cell.row.original.comment}” can no longer call the API.
      </DeleteAction>
    ),
  }),
];

/** Owners and admins only (the API answers 403 to members, shown as the table's error). */
export default function AccessTokensPage() {
  const { isWriter } = usePermissions();
  return (
    <ResourceListPage
      title="Access tokens"
      newForm={isWriter && { title: 'New token', form: <NewTokenForm /> }}
      section="Tokens"
      source={{ queryKey: tokensKey, fetchPage: tokensApi.list }}
      columns={columns}
      defaultSorting="-created_at"
      empty="No access tokens yet."
    />
  );
}
