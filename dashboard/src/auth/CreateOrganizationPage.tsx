import { useQueryClient } from '@tanstack/react-query';
import { createOrganization } from '../api/auth';
import { Form, TextField, useApiForm } from '../components/Form';
import { ImpersonationBanner } from './ImpersonationBanner';

/** `Acme Inc.` → `acme-inc`: the slug offered until one is typed. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** A new organization, made the active one; shown to a user who belongs to none. */
export function CreateOrganizationForm({ onCreated }: { onCreated?: () => void }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    { name: '', slug: '' },
    ({ name, slug }) => createOrganization({ name, slug: slug || slugOf(name) }),
    {
      // The new organization is the active one now: every cached answer was the old one's.
      onSuccess: async () => {
        await queryClient.resetQueries();
        onCreated?.();
      },
    },
  );
  return (
    <Form form={form} submitLabel="Create organization">
      <TextField form={form} name="name" label="Organization name" required />
      <TextField
        form={form}
        name="slug"
        label="Slug"
        hint="Letters, digits and dashes; used in URLs."
        placeholder={slugOf(form.values.name)}
      />
    </Form>
  );
}

export function CreateOrganizationPage() {
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <ImpersonationBanner />
        <p className="brand auth-brand">Tollgate</p>
        <h1>Create your organization</h1>
        <p className="muted">Products, customers and orders belong to an organization.</p>
        <CreateOrganizationForm />
      </div>
    </main>
  );
}
