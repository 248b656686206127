import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { organizationRoles } from '../../../../domain/organization-permissions.ts';
import { ApiError } from '../../api/client';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { invitationsApi, organizationKey, roleOptions } from './api';

/**
 * The invite-member body's rules (api/auth/organization/invitation-routes.ts checks them in
 * its route, with Better Auth's codes, so there is no schema module to share): an email and a
 * role the organization grants.
 */
const inviteInput = z.object({
  email: z.email('Enter an email address.'),
  role: z.string().refine((role) => Object.hasOwn(organizationRoles, role), 'Unknown role'),
});

/** Better Auth's refusals that are about the email typed. */
const emailCodes = new Set([
  'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION',
  'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION',
]);

export function InviteForm({ mayGrantOwner }: { mayGrantOwner: boolean }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    { email: '', role: 'member' },
    async (values) => {
      try {
        return await invitationsApi.invite(values);
      } catch (error) {
        if (error instanceof ApiError && emailCodes.has(error.code)) {
          throw new ApiError(error.message, error.status, error.code, { email: error.message });
        }
        throw error;
      }
    },
    {
      schema: inviteInput,
      onSuccess: () => {
        form.setValue('email', '');
        return queryClient.invalidateQueries({ queryKey: organizationKey });
      },
    },
  );
  return (
    <Form form={form} submitLabel="Send invitation">
      <TextField form={form} name="email" label="Email" type="email" autoComplete="off" required />
      <SelectField
        form={form}
        name="role"
        label="Role"
        required
        options={roleOptions.filter((option) => mayGrantOwner || option.value !== 'owner')}
      />
    </Form>
  );
}
