import { Link, useQueryState } from '../../router';
import '../orders/sales.css';

interface IdFilterChipProps {
  /** The URL query name (`order_id`). */
  name: string;
  /** What the id names, in words (`Order`). */
  label: string;
  /** The page of the entity the id names (`/orders/`). */
  pathPrefix: string;
}

/**
 * A list filter by one related entity (an order's payments), set by the links of that entity's
 * page and shown as a chip that clears it; nothing when the URL has none.
 */
export function IdFilterChip({ name, label, pathPrefix }: IdFilterChipProps) {
  const [params, setParams] = useQueryState();
  const id = params.get(name);
  if (!id) return null;
  return (
    <span className="filter-chip">
      {label}:{' '}
      <Link to={`${pathPrefix}${id}`} title={id}>
        {id.slice(0, 8)}
      </Link>{' '}
      <button
        type="button"
        className="button"
        onClick={() => setParams({ [name]: null, page: null })}
      >
        Clear<span className="visually-hidden"> {label.toLowerCase()} filter</span>
      </button>
    </span>
  );
}
