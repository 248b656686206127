import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { EntityPage } from '../../components/EntityPage';
import { Link, useQueryState } from '../../router';
import { type Customer, fetchCustomers } from './api';

const column = createColumnHelper<Customer>();

const columns = [
  column.accessor('email', {
    header: 'Email',
    enableSorting: true,
    cell: (cell) => <Link to={`/customers/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => cell.getValue() ?? <span className="muted">—</span>,
  }),
  column.accessor('external_id', {
    header: 'External id',
    cell: (cell) =>
      cell.getValue() ? <code>{cell.getValue()}</code> : <span className="muted">—</span>,
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

export default function CustomersPage() {
  const [params] = useQueryState();
  return (
    <EntityPage title="Customers">
      <DataTable
        label="Customers"
        queryKey={['customers']}
        columns={columns}
        getRowId={(customer) => customer.id}
        fetchPage={(query, signal) => fetchCustomers(query, signal)}
        filters={[{ name: 'query', label: 'Search', type: 'search' }]}
        defaultSorting="-created_at"
        empty={params.get('query') ? 'No customer matches this search.' : 'No customers yet.'}
      />
    </EntityPage>
  );
}
