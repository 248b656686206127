import { useQuery } from '@tanstack/react-query';
import { benefitsApi, benefitsKey } from './api';

/** The benefit the page's `:id` names, cached with the list's benefits. */
export const useBenefit = (id: string) =>
  useQuery({
    queryKey: [...benefitsKey, id],
    queryFn: ({ signal }) => benefitsApi.get(id, signal),
  });
