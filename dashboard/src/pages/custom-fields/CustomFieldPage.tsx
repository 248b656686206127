import { useQuery } from '@tanstack/react-query';
import { EntityPage } from '../../components/EntityPage';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { customFieldsApi, customFieldsKey } from './api';
import { CustomFieldForm } from './CustomFieldForm';

/** A custom field: its settings to edit, and deleting it. */
export default function CustomFieldPage({ params }: PageProps) {
  const id = params.id ?? '';
  const field = useQuery({
    queryKey: [...customFieldsKey, id],
    queryFn: ({ signal }) => customFieldsApi.get(id, signal),
  });
  return (
    <EntityPage
      title={field.data?.name ?? 'Custom field'}
      subtitle={field.data && <code>{field.data.slug}</code>}
      back={{ to: '/custom-fields', label: 'Custom fields' }}
      actions={
        <DeleteAction
          label="Delete custom field"
          run={() => customFieldsApi.delete(id)}
          queryKey={customFieldsKey}
          then="/custom-fields"
        >
          Checkouts stop asking for it; answers already given stay on their orders.
        </DeleteAction>
      }
    >
      <Loaded query={field} what="the custom field">
        {(loaded) => <CustomFieldForm key={loaded.id} field={loaded} />}
      </Loaded>
    </EntityPage>
  );
}
