import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link, useQueryState } from '../../router';
import { ApiKeyState } from './ApiKeyState';
import { type ApiKey, apiKeyStateOptions, apiKeysApi, apiKeysKey } from './api';
import { DeleteApiKey } from './DeleteApiKey';
import { NewApiKeyForm } from './NewApiKeyForm';

const column = createColumnHelper<ApiKey>();

// Column ids are the sorting names of apiKeysApi.list.
const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/api-keys/${cell.row.original.id}`}>{cell.getValue() ?? 'Unnamed key'}</Link>
    ),
  }),
  column.accessor('start', {
    header: 'Starts with',
    cell: (cell) => <code>{cell.getValue() ?? ''}…</code>,
  }),
  column.accessor('enabled', {
    header: 'State',
    cell: (cell) => <ApiKeyState apiKey={cell.row.original} />,
  }),
  column.accessor('expiresAt', {
    header: 'Expires',
    cell: (cell) => (cell.getValue() ? <DateTime value={cell.getValue()} /> : 'Never'),
  }),
  column.accessor('lastRequest', {
    id: 'last_request',
    header: 'Last used',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('createdAt', {
    id: 'created_at',
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.display({
    id: 'actions',
    header: () => <span className="visually-hidden">Actions</span>,
    cell: (cell) => <DeleteApiKey apiKey={cell.row.original} />,
  }),
];

const filters: TableFilter[] = [
  { name: 'state', label: 'State', type: 'select', options: apiKeyStateOptions },
];

/** The signed-in user's own keys: each acts as the user, in every organization they belong to. */
export default function ApiKeysPage() {
  const [params] = useQueryState();
  return (
    <ResourceListPage
      title="API keys"
      subtitle={
        <p className="muted">
          Your personal keys: a program sends one in the <code>x-api-key</code> header and acts as
          you. For a server acting for this organization alone, use its{' '}
          <Link to="/organization/tokens">access tokens</Link>.
        </p>
      }
      newForm={{ title: 'New API key', form: <NewApiKeyForm /> }}
      section="Keys"
      source={{ queryKey: apiKeysKey, fetchPage: apiKeysApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="-created_at"
      empty={params.get('state') ? 'No API keys match this filter.' : 'No API keys yet.'}
    />
  );
}
