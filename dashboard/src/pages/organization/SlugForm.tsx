import { useQueryClient } from '@tanstack/react-query';
import { organizationsQueryKey } from '../../auth/session';
import { Form, TextField, useApiForm } from '../../components/Form';
import { type OrganizationSettings, settingsApi, settingsKey } from './api';

/**
 * The slug is changed through Better Auth's organization update (the /v1 update has none); a
 * taken slug comes back as ORGANIZATION_ALREADY_EXISTS, shown next to the field.
 */
export function SlugForm({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    { slug: organization.slug },
    (values) => settingsApi.updateSlug(values.slug),
    {
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: settingsKey }),
          queryClient.invalidateQueries({ queryKey: organizationsQueryKey }),
        ]),
    },
  );
  return (
    <Form form={form} submitLabel="Change slug">
      <TextField
        form={form}
        name="slug"
        label="Slug"
        hint="Lowercase letters, digits and dashes; it prefixes invoice numbers."
        pattern="[a-z0-9-]+"
        required
      />
    </Form>
  );
}
