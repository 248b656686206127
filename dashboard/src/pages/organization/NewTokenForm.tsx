import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { accessTokenCreateInput } from '../../../../commerce/access-tokens/schemas.ts';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { tokensApi, tokensKey } from './api';
import { ScopeGrid } from './ScopeGrid';
import { SecretOnce } from './SecretOnce';

const day = 24 * 3600;
const lifetimes = [
  { value: String(7 * day), label: '7 days' },
  { value: String(30 * day), label: '30 days' },
  { value: String(90 * day), label: '90 days' },
  { value: String(365 * day), label: '1 year' },
  { value: '', label: 'Never expires' },
];

interface TokenValues {
  comment: string;
  /** Seconds, as the select's text; empty for a token that does not expire. */
  expires_in: string;
  scopes: string[];
}

const toBody = (values: TokenValues) => ({
  comment: values.comment,
  scopes: values.scopes,
  expires_in: values.expires_in ? Number(values.expires_in) : null,
});

/**
 * Creates an access token (checked with the API's own schema); the token itself is answered
 * once, so it stays on screen with a copy button until dismissed.
 */
export function NewTokenForm() {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<string | null>(null);
  const form = useApiForm(
    { comment: '', expires_in: String(30 * day), scopes: [] } as TokenValues,
    (values) => tokensApi.create(toBody(values)),
    {
      schema: {
        safeParse: (values: TokenValues) => accessTokenCreateInput.safeParse(toBody(values)),
      },
      onSuccess: (answer) => {
        setCreated(answer.token);
        return queryClient.invalidateQueries({ queryKey: tokensKey });
      },
    },
  );
  if (created) return <SecretOnce secret={created} what="token" onDone={() => setCreated(null)} />;
  return (
    <Form form={form} submitLabel="Create token">
      <TextField form={form} name="comment" label="Name" hint="What uses it." required />
      <SelectField form={form} name="expires_in" label="Expires after" options={lifetimes} />
      <ScopeGrid
        selected={form.values.scopes}
        error={form.fieldErrors.scopes}
        onChange={(scopes) => form.setValue('scopes', scopes)}
      />
    </Form>
  );
}
