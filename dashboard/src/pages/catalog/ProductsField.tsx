import { useQuery } from '@tanstack/react-query';
import type { ProductBaseWire } from '../../../../commerce/products/schemas.ts';
import { api, type ListResource } from '../../api/client';
import { Link } from '../../router';
import './catalog.css';

interface ProductsFieldProps {
  legend: string;
  hint: string;
  selected: string[];
  /** The API's refusal of the list or of one of its ids. */
  error: string | undefined;
  onChange: (ids: string[]) => void;
}

/** A checkbox per live product (the first 100, by name): which ones something is for. */
export function ProductsField({ legend, hint, selected, error, onChange }: ProductsFieldProps) {
  const products = useQuery({
    queryKey: ['products', 'picker'],
    queryFn: ({ signal }) =>
      api.get<ListResource<ProductBaseWire>>('/v1/products/', {
        query: { limit: 100, is_archived: false, sorting: ['name'] },
        signal,
      }),
  });
  const toggle = (id: string, checked: boolean) =>
    onChange(checked ? [...selected, id] : selected.filter((other) => other !== id));
  return (
    <fieldset
      className="catalog-group"
      aria-describedby={`products-hint${error ? ' products-error' : ''}`}
    >
      <legend>{legend}</legend>
      <p className="field-hint" id="products-hint">
        {hint}
      </p>
      {error && (
        <p className="field-error" id="products-error" role="alert">
          {error}
        </p>
      )}
      {products.isPending && <p className="muted">Loading products…</p>}
      {products.isError && (
        <p className="field-error">Could not load products: {products.error.message}</p>
      )}
      {products.data?.items.length === 0 && (
        <p className="muted">
          No products yet. <Link to="/products/new">Create a product</Link> first.
        </p>
      )}
      {products.data?.items.map((product) => (
        <label key={product.id} className="checkbox-line">
          <input
            type="checkbox"
            checked={selected.includes(product.id)}
            onChange={(event) => toggle(product.id, event.target.checked)}
          />
          {product.name}
        </label>
      ))}
    </fieldset>
  );
}
