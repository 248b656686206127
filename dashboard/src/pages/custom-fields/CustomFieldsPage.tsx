import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
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
    <ResourceListPage
      title="Custom fields"
      subtitle="What checkout asks buyers besides their details, per product."
      create={{ to: '/custom-fields/new', noun: 'custom field' }}
      source={{ queryKey: customFieldsKey, fetchPage: customFieldsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="slug"
    />
  );
}
