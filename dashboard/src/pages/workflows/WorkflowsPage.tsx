import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import type { PageQuery, TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, useQueryState } from '../../router';
import {
  fetchWorkflowPage,
  isWorkflowKind,
  kindLabels,
  type WorkflowKind,
  type WorkflowRow,
  type WorkflowStatus,
  workflowPagePath,
} from './api';
import './workflows.css';

const statusLabels: Record<WorkflowStatus, string> = {
  running: 'Running',
  failed: 'Failed',
  completed: 'Completed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'Timed out',
  continued_as_new: 'Continued as new',
};

const filters: TableFilter[] = [
  {
    name: 'status',
    label: 'Status',
    type: 'select',
    options: [
      // The ones that need a look; the API takes several statuses at once.
      { value: 'running,failed', label: 'Running or failed' },
      ...Object.entries(statusLabels).map(([value, label]) => ({ value, label })),
    ],
  },
];

const column = createColumnHelper<WorkflowRow>();
const columns = [
  column.accessor('entity_id', {
    header: 'Entity',
    cell: (cell) => {
      const { entity_path: path } = cell.row.original;
      const id = <code>{cell.getValue()}</code>;
      return path ? <Link to={path}>{id}</Link> : id;
    },
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor('start_time', {
    header: 'Started',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('close_time', {
    header: 'Closed',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.display({
    id: 'workflow',
    header: 'Workflow',
    cell: (cell) => (
      <Link to={workflowPagePath(cell.row.original.kind, cell.row.original.entity_id)}>
        Timeline and state
      </Link>
    ),
  }),
];

/** The organization's workflows of one kind, newest first, with where each stands. */
export default function WorkflowsPage() {
  const [params] = useQueryState();
  const requested = params.get('type') ?? '';
  const kind: WorkflowKind = isWorkflowKind(requested) ? requested : 'subscription';
  const [truncated, setTruncated] = useState(false);
  const fetchPage = async (query: PageQuery, signal: AbortSignal) => {
    const page = await fetchWorkflowPage(kind, query, signal);
    setTruncated(page.truncated);
    return page;
  };

  return (
    <ResourceListPage
      title="Workflows"
      subtitle="What runs behind checkouts, subscriptions and refunds"
      above={
        <>
          <nav aria-label="Workflow types">
            <ul className="kind-tabs">
              {Object.entries(kindLabels).map(([value, label]) => (
                <li key={value}>
                  <Link
                    to={`/workflows?type=${value}`}
                    aria-current={value === kind ? 'page' : undefined}
                  >
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {truncated && (
            <p className="muted" role="note">
              Only the most recent workflows were searched: older ones are not listed.
            </p>
          )}
        </>
      }
      label={`${kindLabels[kind]} workflows`}
      source={{ queryKey: ['workflows', kind], fetchPage }}
      columns={columns}
      getRowId={(row) => row.run_id}
      filters={filters}
      empty={`No ${kindLabels[kind].toLowerCase()} workflows with this status.`}
    />
  );
}
