import { EntityPage } from '../../components/EntityPage';
import { DiscountForm } from './DiscountForm';

export default function NewDiscountPage() {
  return (
    <EntityPage title="New discount" back={{ to: '/discounts', label: 'Discounts' }}>
      <DiscountForm />
    </EntityPage>
  );
}
