import { useQuery, useQueryClient } from '@tanstack/react-query';
import { EntityPage, Section } from '../../components/EntityPage';
import { Form, TextField, useApiForm } from '../../components/Form';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { organizationKey, type Team, teamsApi, teamsKey } from './api';
import { TeamMembers } from './TeamMembers';
import { teamInput } from './teamInput';
import { usePermissions } from './useRole';

function RenameForm({ team }: { team: Team }) {
  const queryClient = useQueryClient();
  const form = useApiForm({ name: team.name }, (values) => teamsApi.rename(team.id, values.name), {
    schema: teamInput,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: teamsKey }),
  });
  return (
    <Form form={form} submitLabel="Rename">
      <TextField form={form} name="name" label="Name" autoComplete="off" required />
    </Form>
  );
}

/** A team (Better Auth has no get-team: it is found in the organization's list). */
export default function TeamPage({ params }: PageProps) {
  const permissions = usePermissions();
  const teams = useQuery({
    queryKey: teamsKey,
    queryFn: ({ signal }) => teamsApi.list(signal),
  });
  return (
    <Loaded query={teams} what="the team">
      {(all) => {
        const team = all.find((candidate) => candidate.id === params.id);
        if (!team) {
          return (
            <EntityPage title="Team not found" back={{ to: '/organization/teams', label: 'Teams' }}>
              <p>No team of this organization has this id.</p>
            </EntityPage>
          );
        }
        return (
          <EntityPage
            title={team.name}
            back={{ to: '/organization/teams', label: 'Teams' }}
            actions={
              permissions.may({ team: ['delete'] }) && (
                <DeleteAction
                  label="Delete team"
                  run={() => teamsApi.remove(team.id)}
                  queryKey={organizationKey}
                  then="/organization/teams"
                >
                  The team “{team.name}” goes; its members stay in the organization.
                </DeleteAction>
              )
            }
          >
            <Section title="Members">
              <TeamMembers
                team={team}
                mayAdd={permissions.may({ member: ['update'] })}
                mayRemove={permissions.may({ member: ['delete'] })}
              />
            </Section>
            {permissions.may({ team: ['update'] }) && (
              <Section title="Rename">
                <RenameForm key={team.updatedAt} team={team} />
              </Section>
            )}
          </EntityPage>
        );
      }}
    </Loaded>
  );
}
