import { useQuery } from '@tanstack/react-query';
import { productKey, productsApi } from './api';

/** The product the page's `:id` names, cached with the list's products. */
export const useProduct = (id: string) =>
  useQuery({
    queryKey: productKey(id),
    queryFn: ({ signal }) => productsApi.get(id, signal),
  });
