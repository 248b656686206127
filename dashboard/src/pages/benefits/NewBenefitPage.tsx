import { EntityPage } from '../../components/EntityPage';
import { BenefitForm } from './BenefitForm';

export default function NewBenefitPage() {
  return (
    <EntityPage title="New benefit" back={{ to: '/benefits', label: 'Benefits' }}>
      <BenefitForm />
    </EntityPage>
  );
}
