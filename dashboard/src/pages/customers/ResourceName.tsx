import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';

interface ResourceNameProps {
  /** The resource's /v1 path (`/v1/products/<id>`). */
  path: string;
  /** Which field names it: `name`, or a benefit's `description`. */
  field?: string;
}

/**
 * The name of a resource another one refers to by id (a customer state's product, benefit or
 * meter); the id until it loads or when it cannot be read. Each is fetched once and cached.
 */
export function ResourceName({ path, field = 'name' }: ResourceNameProps) {
  const resource = useQuery({
    queryKey: ['resource', path],
    queryFn: ({ signal }) => api.get<Record<string, unknown>>(path, { signal }),
    staleTime: 5 * 60_000,
  });
  const name = resource.data?.[field];
  if (typeof name === 'string' && name) return name;
  const id = path.split('/').pop() ?? path;
  return <code title={id}>{id.slice(0, 8)}</code>;
}
