import { useQueryClient } from '@tanstack/react-query';
import { webhookEndpointUpdateInput } from '../../../../commerce/webhooks/schemas.ts';
import { commerceEventTypes } from '../../../../domain/webhooks.ts';
import { Form, TextField, useApiForm } from '../../components/Form';
import { type WebhookEndpoint, webhooksApi, webhooksKey } from './api';
import { CheckboxGroup } from './CheckboxGroup';

/** Changes where an endpoint's events go and which ones, checked with the API's own schema. */
export function EditWebhookForm({
  endpoint,
  onDone,
}: {
  endpoint: WebhookEndpoint;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    { url: endpoint.url, events: endpoint.events as string[] },
    (values) => webhooksApi.update(endpoint.id, values),
    {
      schema: webhookEndpointUpdateInput,
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: webhooksKey });
        onDone();
      },
    },
  );
  return (
    <Form
      form={form}
      submitLabel="Save endpoint"
      actions={
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      }
    >
      <TextField form={form} name="url" label="URL" type="url" required />
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
