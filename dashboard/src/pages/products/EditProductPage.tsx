import { EntityPage } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import type { PageProps } from '../../router';
import { ProductForm } from './ProductForm';
import { useProduct } from './useProduct';

export default function EditProductPage({ params }: PageProps) {
  const id = params.id ?? '';
  const product = useProduct(id);
  return (
    <EntityPage
      title={product.data ? `Edit ${product.data.name}` : 'Edit product'}
      back={{ to: `/products/${id}`, label: product.data?.name ?? 'Product' }}
    >
      {product.isPending && <p className="muted">Loading…</p>}
      {product.isError && (
        <ErrorMessage title="Could not load the product" error={product.error}>
          <button type="button" className="button" onClick={() => product.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {/* Keyed by the product: a refetch must not reset what is being typed, a new product must. */}
      {product.data && <ProductForm key={product.data.id} product={product.data} />}
    </EntityPage>
  );
}
