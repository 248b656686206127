import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, navigate } from '../../router';
import { type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { NewWebhookForm } from './NewWebhookForm';
import { usePermissions } from './useRole';

const column = createColumnHelper<WebhookEndpoint>();

const columns = [
  column.accessor('url', {
    header: 'URL',
    cell: (cell) => (
      <Link to={`/organization/webhooks/${cell.row.original.id}`}>{cell.getValue()}</Link>
    ),
  }),
  column.accessor('format', { header: 'Format' }),
  column.accessor('events', {
    header: 'Events',
    cell: (cell) => cell.getValue().join(', '),
  }),
  column.accessor('enabled', {
    header: 'Status',
    cell: (cell) =>
      cell.getValue() ? (
        <StatusBadge tone="ok">enabled</StatusBadge>
      ) : (
        <StatusBadge tone="failed">disabled</StatusBadge>
      ),
  }),
  column.accessor('created_at', {
    header: 'Created',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

export default function WebhooksPage() {
  const { isWriter } = usePermissions();
  return (
    <ResourceListPage
      title="Webhooks"
      section="Endpoints"
      label="Webhook endpoints"
      source={{ queryKey: webhooksKey, fetchPage: webhooksApi.list }}
      columns={columns}
      empty="No endpoints yet: add one below to receive this organization's events."
      below={
        isWriter && (
          <Section title="New endpoint">
            <NewWebhookForm onCreated={(id) => navigate(`/organization/webhooks/${id}`)} />
          </Section>
        )
      }
    />
  );
}
