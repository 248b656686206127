import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import type { PageProps } from '../../router';
import { ApiKeyState } from './ApiKeyState';
import { apiKeysApi, apiKeysKey } from './api';
import { DeleteApiKey } from './DeleteApiKey';

const back = { to: '/api-keys', label: 'API keys' };

export default function ApiKeyPage({ params }: PageProps<'/api-keys/:id'>) {
  const queryClient = useQueryClient();
  const apiKey = useQuery({
    queryKey: [...apiKeysKey, params.id],
    queryFn: ({ signal }) => apiKeysApi.get(params.id, signal),
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => apiKeysApi.setEnabled(params.id, enabled),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey }),
  });
  if (!apiKey.isSuccess) return <EntityPageFallback title="API key" back={back} query={apiKey} />;
  const { data } = apiKey;
  return (
    <EntityPage
      title={data.name ?? 'Unnamed key'}
      subtitle={
        <>
          <ApiKeyState apiKey={data} /> Personal API key
        </>
      }
      back={back}
      actions={
        <>
          <button
            type="button"
            className="button"
            onClick={() => toggle.mutate(!data.enabled)}
            disabled={toggle.isPending}
          >
            {data.enabled ? 'Disable key' : 'Enable key'}
          </button>
          <DeleteApiKey apiKey={data} then="/api-keys" />
        </>
      }
    >
      {toggle.isError && <ErrorMessage title="Could not change the key" error={toggle.error} />}
      <Section title="Details">
        <Details
          items={[
            ['Starts with', <code key="start">{data.start ?? ''}…</code>],
            ['State', <ApiKeyState key="state" apiKey={data} />],
            [
              'Expires',
              data.expiresAt ? <DateTime key="expires" value={data.expiresAt} /> : 'Never',
            ],
            ['Last used', <DateTime key="used" value={data.lastRequest} />],
            ['Requests', String(data.requestCount)],
            ['Created', <DateTime key="created" value={data.createdAt} />],
            ['Key id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
    </EntityPage>
  );
}
