import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link, useQueryState } from '../../router';
import { CustomerFilter, isFiltered } from '../customers/CustomerFilter';
import { metersApi, metersKey } from '../meters/api';
import { eventSourceOptions, eventsApi, eventsKey, type UsageEvent } from './api';
import { DateRangeFilter, dateRangeScope } from './DateRangeFilter';
import { MetadataSummary } from './MetadataSummary';

const column = createColumnHelper<UsageEvent>();

const columns = [
  column.accessor('timestamp', {
    header: 'Time',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/events/${cell.row.original.id}`}>
        <DateTime value={cell.getValue()} format="seconds" />
      </Link>
    ),
  }),
  column.accessor('name', { header: 'Name', cell: (cell) => <code>{cell.getValue()}</code> }),
  column.accessor((event) => event.customer?.email ?? event.external_customer_id, {
    id: 'customer',
    header: 'Customer',
    cell: (cell) => {
      const { customer_id: customerId } = cell.row.original;
      const shown = cell.getValue() ?? '—';
      return customerId ? <Link to={`/customers/${customerId}`}>{shown}</Link> : shown;
    },
  }),
  column.accessor('source', { header: 'Source' }),
  column.accessor('metadata', {
    header: 'Metadata',
    cell: (cell) => <MetadataSummary metadata={cell.getValue()} />,
  }),
];

/** Filter options of what the organization has: its event names and meters (a hundred each). */
function useOptions() {
  const names = useQuery({
    queryKey: [...eventsKey, 'names'],
    queryFn: ({ signal }) => eventsApi.names(signal),
  });
  const meters = useQuery({
    queryKey: [...metersKey, 'options'],
    queryFn: ({ signal }) => metersApi.list({ page: 1, limit: 100, sorting: ['name'] }, signal),
  });
  return {
    names: (names.data?.items ?? []).map(({ name }) => ({ value: name, label: name })),
    meters: (meters.data?.items ?? []).map((meter) => ({ value: meter.id, label: meter.name })),
  };
}

/** The usage events ingested (and those Tollgate records), newest first. */
export default function EventsPage() {
  const [params] = useQueryState();
  const customerId = params.get('customer_id');
  const options = useOptions();
  const filters: TableFilter[] = [
    { name: 'name', label: 'Name', type: 'select', options: options.names },
    { name: 'external_customer_id', label: 'External customer id', type: 'search' },
    // A meter's events: those its filter matches.
    { name: 'meter_id', label: 'Meter', type: 'select', options: options.meters },
    { name: 'source', label: 'Source', type: 'select', options: eventSourceOptions },
  ];
  return (
    <ResourceListPage
      title="Usage events"
      source={{ queryKey: eventsKey, fetchPage: eventsApi.list }}
      scope={{ ...dateRangeScope(params), ...(customerId && { customer_id: customerId }) }}
      columns={columns}
      filters={filters}
      toolbar={
        <>
          <CustomerFilter />
          <DateRangeFilter />
        </>
      }
      defaultSorting="-timestamp"
      empty={isFiltered(params) ? 'No events match these filters.' : 'No events ingested yet.'}
    />
  );
}
