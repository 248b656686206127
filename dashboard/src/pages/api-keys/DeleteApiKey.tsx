import { DeleteAction } from '../catalog/DeleteAction';
import { type ApiKey, apiKeysApi, apiKeysKey } from './api';

/** Deletes the key for good, behind a confirmation; `then` is where to go afterwards. */
export function DeleteApiKey({ apiKey, then }: { apiKey: ApiKey; then?: string }) {
  return (
    <DeleteAction
      label="Delete API key"
      run={() => apiKeysApi.delete(apiKey.id)}
      queryKey={apiKeysKey}
      then={then}
    >
      Whatever uses “{apiKey.name ?? apiKey.start}” can no longer call the API as you.
    </DeleteAction>
  );
}
