import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
} from '@tanstack/react-table';
import type { ReadinessCheck } from '../api/health';
import { BodyRows } from './DataTable';
import { StatusBadge } from './StatusBadge';

const column = createColumnHelper<ReadinessCheck>();

// Module-level so the table receives a stable reference across renders.
const columns = [
  column.accessor('name', { header: 'Service' }),
  column.accessor('ok', {
    header: 'Status',
    cell: (cell) => (
      <StatusBadge tone={cell.getValue() ? 'ok' : 'failed'}>
        {cell.getValue() ? 'up' : 'down'}
      </StatusBadge>
    ),
  }),
  column.accessor('latencyMs', {
    header: 'Latency (ms)',
    cell: (cell) => Math.round(cell.getValue()),
  }),
  column.accessor('detail', { header: 'Detail' }),
];

interface ReadinessTableProps {
  checks: ReadinessCheck[];
}

export function ReadinessTable({ checks }: ReadinessTableProps) {
  const table = useReactTable({
    data: checks,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (check) => check.name,
  });

  return (
    <table className="data-table">
      <thead>
        {table.getHeaderGroups().map((headerGroup) => (
          <tr key={headerGroup.id}>
            {headerGroup.headers.map((header) => (
              <th key={header.id} className={`col-${header.column.id}`}>
                {flexRender(header.column.columnDef.header, header.getContext())}
              </th>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        <BodyRows table={table} />
      </tbody>
    </table>
  );
}
