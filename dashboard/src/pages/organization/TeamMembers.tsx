import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { DateTime } from '../../components/DateTime';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Field } from '../../components/Form';
import { DeleteAction } from '../catalog/DeleteAction';
import { type Member, membersApi, membersKey, type Team, teamsApi, teamsKey } from './api';

interface TeamMembersProps {
  team: Team;
  mayAdd: boolean;
  mayRemove: boolean;
}

/**
 * A team's members, named from the organization's member list (the team list has user ids
 * only), with adding and removing. Better Auth lists a team's members to its own members only:
 * anyone else sees that refusal, and can still add people (themselves included).
 */
export function TeamMembers({ team, mayAdd, mayRemove }: TeamMembersProps) {
  const members = useQuery({
    queryKey: [...teamsKey, team.id, 'members'],
    queryFn: ({ signal }) => teamsApi.members(team.id, signal),
    retry: false,
  });
  const everyone = useQuery({
    queryKey: [...membersKey, 'all'],
    queryFn: ({ signal }) => membersApi.all(signal),
  });
  const byUser = new Map(everyone.data?.map((member) => [member.userId, member]));
  const inTeam = new Set(members.data?.map((member) => member.userId));
  const notMember =
    members.error instanceof ApiError && members.error.code === 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM';

  return (
    <>
      {members.isPending && <p className="muted">Loading…</p>}
      {notMember && (
        <p className="muted">
          Only members of this team can see who is in it (Better Auth’s rule).
        </p>
      )}
      {members.isError && !notMember && (
        <ErrorMessage title="Could not load the team's members" error={members.error}>
          <button type="button" className="button" onClick={() => members.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {members.data?.length === 0 && <p className="muted">Nobody is in this team yet.</p>}
      {members.data && members.data.length > 0 && (
        <table className="data-table">
          <caption className="visually-hidden">Members of {team.name}</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((teamMember) => {
              const label = byUser.get(teamMember.userId)?.user.email ?? teamMember.userId;
              return (
                <tr key={teamMember.id}>
                  <td>{label}</td>
                  <td>
                    <DateTime value={teamMember.createdAt} />
                  </td>
                  <td>
                    {mayRemove && (
                      <DeleteAction
                        label="Remove from team"
                        run={() => teamsApi.removeMember(team.id, teamMember.userId)}
                        queryKey={[...teamsKey, team.id]}
                      >
                        {label} leaves {team.name} and stays in the organization.
                      </DeleteAction>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {mayAdd && everyone.data && (
        <AddTeamMember
          team={team}
          candidates={everyone.data.filter((member) => !inTeam.has(member.userId))}
        />
      )}
    </>
  );
}

function AddTeamMember({ team, candidates }: { team: Team; candidates: Member[] }) {
  const queryClient = useQueryClient();
  const [userId, setUserId] = useState('');
  const add = useMutation({
    mutationFn: () => teamsApi.addMember(team.id, userId),
    onSuccess: () => {
      setUserId('');
      return queryClient.invalidateQueries({ queryKey: [...teamsKey, team.id] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (userId) add.mutate();
  };
  if (candidates.length === 0) return null;
  return (
    <form className="form" onSubmit={submit} aria-label="Add a member to the team">
      <Field name="userId" label="Member to add" error={add.error?.message} required>
        {(props) => (
          <select {...props} value={userId} onChange={(event) => setUserId(event.target.value)}>
            <option value="">Choose a member…</option>
            {candidates.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.user.name} ({member.user.email})
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={add.isPending || !userId}>
          {add.isPending ? 'Adding…' : 'Add to team'}
        </button>
      </div>
    </form>
  );
}
