import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { webhookEndpointCreateInput } from '../../../../commerce/webhooks/schemas.ts';
import { commerceEventTypes, webhookFormats } from '../../../../domain/webhooks.ts';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { CheckboxGroup } from './CheckboxGroup';
import { SecretOnce } from './SecretOnce';

const formatLabels: Record<(typeof webhookFormats)[number], string> = {
  raw: 'Raw (JSON, signed)',
  discord: 'Discord message',
  slack: 'Slack message',
};

/**
 * Adds an endpoint, checked with the API's own schema; the URL's scheme is checked by the API.
 * The signing secret is answered by the creation alone, so it is shown until dismissed.
 */
export function NewWebhookForm({ onCreated }: { onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);
  const form = useApiForm(
    { url: '', format: 'raw', events: [] as string[] },
    (values) => webhooksApi.create(values),
    {
      schema: webhookEndpointCreateInput,
      onSuccess: async (endpoint) => {
        setCreated(endpoint);
        await queryClient.invalidateQueries({ queryKey: webhooksKey });
      },
    },
  );
  if (created) {
    return (
      <SecretOnce
        secret={created.secret}
        what="signing secret"
        onDone={() => onCreated(created.id)}
      />
    );
  }
  return (
    <Form form={form} submitLabel="Add endpoint">
      <TextField
        form={form}
        name="url"
        label="URL"
        type="url"
        placeholder="https://example.com/webhooks"
        required
      />
      <SelectField
        form={form}
        name="format"
        label="Format"
        options={webhookFormats.map((format) => ({ value: format, label: formatLabels[format] }))}
        required
      />
      <CheckboxGroup
        legend="Events"
        options={commerceEventTypes}
        selected={form.values.events}
        error={form.fieldErrors.events}
        onChange={(events) => form.setValue('events', events)}
      />
    </Form>
  );
}
