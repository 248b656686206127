import { createColumnHelper } from '@tanstack/react-table';
import { DataTable, type TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { type BenefitGrant, benefitsApi, benefitsKey } from './api';

const column = createColumnHelper<BenefitGrant>();

/** Granted, revoked, failed, or on its way. */
function GrantStatus({ grant }: { grant: BenefitGrant }) {
  if (grant.error) return <StatusBadge status="failed">failed: {grant.error.message}</StatusBadge>;
  if (grant.is_revoked) return <StatusBadge status="revoked" />;
  if (grant.is_granted) return <StatusBadge status="granted" />;
  return <StatusBadge status="pending" />;
}

const columns = [
  column.accessor('customer', {
    header: 'Customer',
    cell: (cell) => <Link to={`/customers/${cell.getValue().id}`}>{cell.getValue().email}</Link>,
  }),
  column.display({
    id: 'status',
    header: 'Status',
    cell: (cell) => <GrantStatus grant={cell.row.original} />,
  }),
  column.display({
    id: 'source',
    header: 'Through',
    cell: (cell) => {
      const { order_id, subscription_id } = cell.row.original;
      if (subscription_id)
        return <Link to={`/subscriptions/${subscription_id}`}>Subscription</Link>;
      if (order_id) return <Link to={`/orders/${order_id}`}>Order</Link>;
      return <span className="muted">—</span>;
    },
  }),
  column.accessor('granted_at', {
    header: 'Granted',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('revoked_at', {
    header: 'Revoked',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const filters: TableFilter[] = [
  {
    name: 'is_granted',
    label: 'Status',
    type: 'select',
    options: [
      { value: 'true', label: 'Granted' },
      { value: 'false', label: 'Not granted' },
    ],
  },
];

/** Who has the benefit (newest first: the API sorts a benefit's grants so). */
export function GrantsTable({ benefitId }: { benefitId: string }) {
  return (
    <DataTable
      label="Grants"
      queryKey={[...benefitsKey, benefitId, 'grants']}
      columns={columns}
      getRowId={(grant) => grant.id}
      fetchPage={(query, signal) => benefitsApi.grants(benefitId, query, signal)}
      filters={filters}
      urlPrefix="grants_"
      empty="No customer has this benefit yet."
    />
  );
}
