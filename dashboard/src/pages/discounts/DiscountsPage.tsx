import { createColumnHelper } from '@tanstack/react-table';
import { DataTable, type TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { EntityPage } from '../../components/EntityPage';
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
    <EntityPage
      title="Discounts"
      actions={
        <Link to="/discounts/new" className="button button-primary">
          New discount
        </Link>
      }
    >
      <DataTable
        label="Discounts"
        queryKey={discountsKey}
        columns={columns}
        getRowId={(discount) => discount.id}
        fetchPage={discountsApi.list}
        filters={filters}
        defaultSorting="-created_at"
        empty={
          <>
            No discounts match. <Link to="/discounts/new">Create a discount</Link>.
          </>
        }
      />
    </EntityPage>
  );
}
