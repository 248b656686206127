import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { SecretOnce } from '../organization/SecretOnce';
import { apiKeysApi, apiKeysKey } from './api';

const day = 24 * 3600;
// Better Auth lets a key live from 1 to 365 days, or for ever.
const lifetimes = [
  { value: String(7 * day), label: '7 days' },
  { value: String(30 * day), label: '30 days' },
  { value: String(90 * day), label: '90 days' },
  { value: String(365 * day), label: '1 year' },
  { value: '', label: 'Never expires' },
];

interface ApiKeyValues {
  name: string;
  /** Seconds, as the select's text; empty for a key that does not expire. */
  expiresIn: string;
}

/** Creates a key; the key itself is answered once, so it stays on screen until dismissed. */
export function NewApiKeyForm() {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<string | null>(null);
  const form = useApiForm(
    { name: '', expiresIn: String(90 * day) } as ApiKeyValues,
    ({ name, expiresIn }) =>
      apiKeysApi.create({ name, expiresIn: expiresIn ? Number(expiresIn) : null }),
    {
      onSuccess: (answer) => {
        setCreated(answer.key);
        return queryClient.invalidateQueries({ queryKey: apiKeysKey });
      },
    },
  );
  if (created)
    return <SecretOnce secret={created} what="API key" onDone={() => setCreated(null)} />;
  return (
    <Form form={form} submitLabel="Create API key">
      <TextField
        form={form}
        name="name"
        label="Name"
        hint="What uses it (up to 32 characters)."
        maxLength={32}
        required
      />
      <SelectField form={form} name="expiresIn" label="Expires after" options={lifetimes} />
    </Form>
  );
}
