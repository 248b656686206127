import { useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import type { PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Form, TextField, useApiForm } from '../../components/Form';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { organizationKey, pageOf, type Team, teamsApi, teamsKey } from './api';
import { teamInput } from './teamInput';
import { usePermissions } from './useRole';

const column = createColumnHelper<Team>();

const fetchPage = async (query: PageQuery, signal: AbortSignal) =>
  pageOf(await teamsApi.list(signal), query, {
    name: (team) => team.name,
    created_at: (team) => team.createdAt,
  });

function NewTeamForm() {
  const queryClient = useQueryClient();
  const form = useApiForm({ name: '' }, (values) => teamsApi.create(values.name), {
    schema: teamInput,
    onSuccess: () => {
      form.setValue('name', '');
      return queryClient.invalidateQueries({ queryKey: teamsKey });
    },
  });
  return (
    <Form form={form} submitLabel="Create team">
      <TextField form={form} name="name" label="Name" autoComplete="off" required />
    </Form>
  );
}

export default function TeamsPage() {
  const permissions = usePermissions();
  const columns = [
    column.accessor('name', {
      header: 'Name',
      enableSorting: true,
      cell: (cell) => (
        <Link to={`/organization/teams/${cell.row.original.id}`}>{cell.getValue()}</Link>
      ),
    }),
    column.accessor('createdAt', {
      id: 'created_at',
      header: 'Created',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) =>
        permissions.may({ team: ['delete'] }) && (
          <DeleteAction
            label="Delete team"
            run={() => teamsApi.remove(cell.row.original.id)}
            queryKey={organizationKey}
          >
            The team “{cell.row.original.name}” goes; its members stay in the organization.
          </DeleteAction>
        ),
    }),
  ];
  return (
    <ResourceListPage
      title="Teams"
      newForm={
        permissions.may({ team: ['create'] }) && { title: 'New team', form: <NewTeamForm /> }
      }
      section="Teams"
      source={{ queryKey: teamsKey, fetchPage }}
      columns={columns}
      defaultSorting="name"
      empty="No teams yet."
    />
  );
}
