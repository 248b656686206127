import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { type Member, membersApi, organizationKey, roleOptions } from './api';

interface MemberRoleProps {
  member: Member;
  /** False: the role is shown, not changeable (the viewer may not, or it is the last owner). */
  editable: boolean;
  /** Owners may grant the owner role; admins may not. */
  mayGrantOwner: boolean;
}

/** A member's role, changed in place; a refusal shows beside the select. */
export function MemberRole({ member, editable, mayGrantOwner }: MemberRoleProps) {
  const queryClient = useQueryClient();
  const errorId = useId();
  const change = useMutation({
    mutationFn: (role: string) => membersApi.updateRole(member.id, role),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKey }),
  });
  if (!editable) return <span>{member.role}</span>;
  const options = roleOptions.filter(
    (option) => mayGrantOwner || option.value !== 'owner' || member.role === 'owner',
  );
  return (
    <>
      <select
        aria-label={`Role of ${member.user.email}`}
        aria-describedby={change.error ? errorId : undefined}
        value={change.isPending ? change.variables : member.role}
        disabled={change.isPending}
        onChange={(event) => change.mutate(event.target.value)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {change.error && (
        <p className="field-error" id={errorId} role="alert">
          {change.error.message}
        </p>
      )}
    </>
  );
}
