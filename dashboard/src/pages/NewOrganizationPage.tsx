import { CreateOrganizationForm } from '../auth/CreateOrganizationPage';
import { EntityPage } from '../components/EntityPage';
import { navigate } from '../router';

/** Another organization for a user who has one already (the switcher's "New organization"). */
export default function NewOrganizationPage() {
  return (
    <EntityPage title="New organization">
      <CreateOrganizationForm onCreated={() => navigate('/')} />
    </EntityPage>
  );
}
