import { useQuery } from '@tanstack/react-query';
import { metersApi, metersKey } from './api';

/** The meter the page's `:id` names, cached with the list's meters. */
export const useMeter = (id: string) =>
  useQuery({ queryKey: [...metersKey, id], queryFn: ({ signal }) => metersApi.get(id, signal) });
