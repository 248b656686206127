import { EntityPage } from '../../components/EntityPage';
import { CheckoutLinkForm } from './CheckoutLinkForm';

export default function NewCheckoutLinkPage() {
  return (
    <EntityPage title="New checkout link" back={{ to: '/checkout-links', label: 'Checkout links' }}>
      <CheckoutLinkForm />
    </EntityPage>
  );
}
