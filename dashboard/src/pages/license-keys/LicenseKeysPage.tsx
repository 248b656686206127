import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, useQueryState } from '../../router';
import { benefitsApi, benefitsKey } from '../benefits/api';
import { CustomerFilter, isFiltered } from '../customers/CustomerFilter';
import { ResourceName } from '../customers/ResourceName';
import { type LicenseKey, licenseKeyStatusOptions, licenseKeysApi, licenseKeysKey } from './api';

const column = createColumnHelper<LicenseKey>();

const columns = [
  column.accessor('display_key', {
    header: 'Key',
    cell: (cell) => (
      <Link to={`/license-keys/${cell.row.original.id}`}>
        <code>{cell.getValue()}</code>
      </Link>
    ),
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor((key) => key.customer.email, {
    id: 'customer',
    header: 'Customer',
    cell: (cell) => (
      <Link to={`/customers/${cell.row.original.customer_id}`}>{cell.getValue()}</Link>
    ),
  }),
  column.accessor('benefit_id', {
    header: 'Benefit',
    cell: (cell) => (
      <Link to={`/benefits/${cell.getValue()}`}>
        <ResourceName path={`/v1/benefits/${cell.getValue()}`} field="description" />
      </Link>
    ),
  }),
  column.accessor('validations', { header: 'Validations' }),
  column.accessor('last_validated_at', {
    header: 'Last validated',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('created_at', {
    header: 'Created',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

/** The license key benefits to filter by (the first hundred). */
function useLicenseBenefitOptions() {
  const benefits = useQuery({
    queryKey: [...benefitsKey, 'license-key-options'],
    queryFn: ({ signal }) =>
      benefitsApi.list(
        { page: 1, limit: 100, sorting: ['description'], type: 'license_keys' },
        signal,
      ),
  });
  return (benefits.data?.items ?? []).map((benefit) => ({
    value: benefit.id,
    label: benefit.description,
  }));
}

/** The keys license key benefits granted, oldest first (the API's only order). */
export default function LicenseKeysPage() {
  const [params] = useQueryState();
  const customerId = params.get('customer_id');
  const filters: TableFilter[] = [
    { name: 'benefit_id', label: 'Benefit', type: 'select', options: useLicenseBenefitOptions() },
    { name: 'status', label: 'Status', type: 'select', options: licenseKeyStatusOptions },
  ];
  return (
    <ResourceListPage
      title="License keys"
      source={{ queryKey: licenseKeysKey, fetchPage: licenseKeysApi.list }}
      scope={customerId ? { customer_id: customerId } : undefined}
      columns={columns}
      filters={filters}
      toolbar={<CustomerFilter />}
      empty={
        isFiltered(params)
          ? 'No license keys match these filters.'
          : 'No license keys yet: a product with a license key benefit grants one to each buyer.'
      }
    />
  );
}
