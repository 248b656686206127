import { createColumnHelper } from '@tanstack/react-table';
import { DataTable, type TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { EntityPage } from '../../components/EntityPage';
import { Link } from '../../router';
import { type CustomField, customFieldsApi, customFieldsKey, customFieldTypes } from './api';

const column = createColumnHelper<CustomField>();

const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => <Link to={`/custom-fields/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('slug', {
    header: 'Slug',
    enableSorting: true,
    cell: (cell) => <code>{cell.getValue()}</code>,
  }),
  column.accessor('type', { header: 'Type', enableSorting: true }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const filters: TableFilter[] = [
  { name: 'query', label: 'Search names and slugs', type: 'search' },
  { name: 'type', label: 'Type', type: 'select', options: customFieldTypes },
];

export default function CustomFieldsPage() {
  return (
    <EntityPage
      title="Custom fields"
      subtitle="What checkout asks buyers besides their details, per product."
      actions={
        <Link to="/custom-fields/new" className="button button-primary">
          New custom field
        </Link>
      }
    >
      <DataTable
        label="Custom fields"
        queryKey={customFieldsKey}
        columns={columns}
        getRowId={(field) => field.id}
        fetchPage={customFieldsApi.list}
        filters={filters}
        defaultSorting="slug"
        empty={
          <>
            No custom fields match. <Link to="/custom-fields/new">Create a custom field</Link>.
          </>
        }
      />
    </EntityPage>
  );
}
