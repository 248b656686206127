import { EntityPage } from '../../components/EntityPage';
import { CustomFieldForm } from './CustomFieldForm';

export default function NewCustomFieldPage() {
  return (
    <EntityPage title="New custom field" back={{ to: '/custom-fields', label: 'Custom fields' }}>
      <CustomFieldForm />
    </EntityPage>
  );
}
