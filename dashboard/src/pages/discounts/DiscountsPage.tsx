import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link } from '../../router';
import { type Discount, discountsApi, discountsKey } from './api';
import { durationLabel, Reduction, redemptionsLabel } from './terms';

const column = createColumnHelper<Discount>();

const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => <Link to={`/discounts/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('code', {
    header: 'Code',
    enableSorting: true,
    cell: (cell) => cell.getValue() ?? <span className="muted">—</span>,
  }),
  column.display({
    id: 'reduction',
    header: 'Off',
    cell: (cell) => <Reduction discount={cell.row.original} />,
  }),
  column.display({
    id: 'duration',
    header: 'Duration',
    cell: (cell) => durationLabel(cell.row.original),
  }),
  column.accessor('redemptions_count', {
    header: 'Redemptions',
    enableSorting: true,
    cell: (cell) => redemptionsLabel(cell.row.original),
  }),
  column.accessor('ends_at', {
    header: 'Ends',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const filters: TableFilter[] = [{ name: 'query', label: 'Search names and codes', type: 'search' }];

export default function DiscountsPage() {
  return (
    <ResourceListPage
      title="Discounts"
      create={{ to: '/discounts/new', noun: 'discount' }}
      source={{ queryKey: discountsKey, fetchPage: discountsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="-created_at"
    />
  );
}
