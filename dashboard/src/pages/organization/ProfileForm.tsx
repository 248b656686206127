import { useQueryClient } from '@tanstack/react-query';
import { organizationUpdateInput } from '../../../../commerce/organizations/schemas.ts';
import { organizationsQueryKey } from '../../auth/session';
import { Form, TextField, useApiForm } from '../../components/Form';
import { type OrganizationSettings, settingsApi, settingsKey } from './api';

interface ProfileValues {
  name: string;
  email: string;
  website: string;
}

/** Empty optional fields are sent as null (cleared), as the API's schema takes them. */
const toBody = (values: ProfileValues) => ({
  name: values.name,
  email: values.email.trim() || null,
  website: values.website.trim() || null,
});

const profileSchema = {
  safeParse: (values: ProfileValues) => organizationUpdateInput.safeParse(toBody(values)),
};

/** The organization's name and contact details (PATCH /v1/organizations/{id}). */
export function ProfileForm({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    {
      name: organization.name,
      email: organization.email ?? '',
      website: organization.website ?? '',
    },
    (values) => settingsApi.update(organization.id, toBody(values)),
    {
      schema: profileSchema,
      onSuccess: async (updated) => {
        queryClient.setQueryData([...settingsKey, organization.id], updated);
        // The switcher shows the name.
        await queryClient.invalidateQueries({ queryKey: organizationsQueryKey });
      },
    },
  );
  return (
    <Form form={form} submitLabel="Save">
      <TextField form={form} name="name" label="Name" required />
      <TextField form={form} name="email" label="Support email" type="email" />
      <TextField form={form} name="website" label="Website" type="url" />
    </Form>
  );
}
