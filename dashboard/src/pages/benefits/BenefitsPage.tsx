import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link } from '../../router';
import { type Benefit, benefitsApi, benefitsKey, benefitTypeLabel, benefitTypes } from './api';

const column = createColumnHelper<Benefit>();

const columns = [
  column.accessor('description', {
    header: 'Description',
    enableSorting: true,
    cell: (cell) => <Link to={`/benefits/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('type', {
    header: 'Type',
    enableSorting: true,
    cell: (cell) => benefitTypeLabel(cell.getValue()),
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const filters: TableFilter[] = [
  { name: 'query', label: 'Search descriptions', type: 'search' },
  { name: 'type', label: 'Type', type: 'select', options: benefitTypes },
];

export default function BenefitsPage() {
  return (
    <ResourceListPage
      title="Benefits"
      subtitle="What customers get with products: notes, license keys, files, credits, access."
      create={{ to: '/benefits/new', noun: 'benefit' }}
      source={{ queryKey: benefitsKey, fetchPage: benefitsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="-created_at"
    />
  );
}
