import { useQuery } from '@tanstack/react-query';
import { EntityPage } from '../../components/EntityPage';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { discountsApi, discountsKey } from './api';
import { DiscountForm } from './DiscountForm';
import { redemptionsLabel } from './terms';

/** A discount: its terms to edit, and deleting it. */
export default function DiscountPage({ params }: PageProps) {
  const id = params.id ?? '';
  const discount = useQuery({
    queryKey: [...discountsKey, id],
    queryFn: ({ signal }) => discountsApi.get(id, signal),
  });
  return (
    <EntityPage
      title={discount.data?.name ?? 'Discount'}
      subtitle={discount.data && `Redeemed ${redemptionsLabel(discount.data)} times`}
      back={{ to: '/discounts', label: 'Discounts' }}
      actions={
        <DeleteAction
          label="Delete discount"
          run={() => discountsApi.delete(id)}
          queryKey={discountsKey}
          then="/discounts"
        >
          Buyers can no longer redeem it. Orders and subscriptions that already have it keep it.
        </DeleteAction>
      }
    >
      {/* Keyed by the discount: a refetch must not reset what is being typed. */}
      <Loaded query={discount} what="the discount">
        {(loaded) => <DiscountForm key={loaded.id} discount={loaded} />}
      </Loaded>
    </EntityPage>
  );
}
