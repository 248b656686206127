import { createColumnHelper } from '@tanstack/react-table';
import type { MeterAggregation, MeterFilter } from '../../../../domain/meter-filter.ts';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { type Meter, metersApi, metersKey } from './api';
import { aggregationText, filterText } from './describe';

const column = createColumnHelper<Meter>();

const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => (
      <>
        <Link to={`/meters/${cell.row.original.id}`}>{cell.getValue()}</Link>{' '}
        {cell.row.original.archived_at && <StatusBadge tone="neutral">archived</StatusBadge>}
      </>
    ),
  }),
  column.accessor('filter', {
    header: 'Counts',
    cell: (cell) => filterText(cell.getValue() as MeterFilter),
  }),
  column.accessor('aggregation', {
    header: 'Aggregation',
    cell: (cell) => aggregationText(cell.getValue() as MeterAggregation),
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const filters: TableFilter[] = [
  { name: 'query', label: 'Search names', type: 'search' },
  {
    name: 'is_archived',
    label: 'Status',
    type: 'select',
    options: [
      { value: 'false', label: 'Live' },
      { value: 'true', label: 'Archived' },
    ],
  },
];

export default function MetersPage() {
  return (
    <ResourceListPage
      title="Meters"
      subtitle="Usage events they count, for usage-based prices and credits."
      create={{ to: '/meters/new', noun: 'meter' }}
      source={{ queryKey: metersKey, fetchPage: metersApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="name"
    />
  );
}
