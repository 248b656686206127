import { EntityPage } from '../../components/EntityPage';
import { ProductForm } from './ProductForm';

export default function NewProductPage() {
  return (
    <EntityPage title="New product" back={{ to: '/products', label: 'Products' }}>
      <ProductForm />
    </EntityPage>
  );
}
