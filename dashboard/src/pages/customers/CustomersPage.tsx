import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
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
    <ResourceListPage
      title="Customers"
      source={{ queryKey: ['customers'], fetchPage: fetchCustomers }}
      columns={columns}
      filters={[{ name: 'query', label: 'Search', type: 'search' }]}
      defaultSorting="-created_at"
      empty={params.get('query') ? 'No customer matches this search.' : 'No customers yet.'}
    />
  );
}
