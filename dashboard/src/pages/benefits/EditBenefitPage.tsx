import { EntityPage } from '../../components/EntityPage';
import type { PageProps } from '../../router';
import { Loaded } from '../catalog/Loaded';
import { BenefitForm } from './BenefitForm';
import { useBenefit } from './useBenefit';

export default function EditBenefitPage({ params }: PageProps) {
  const id = params.id ?? '';
  const benefit = useBenefit(id);
  return (
    <EntityPage
      title={benefit.data ? `Edit ${benefit.data.description}` : 'Edit benefit'}
      back={{ to: `/benefits/${id}`, label: benefit.data?.description ?? 'Benefit' }}
    >
      {/* Keyed by the benefit: a refetch must not reset what is being typed. */}
      <Loaded query={benefit} what="the benefit">
        {(loaded) => <BenefitForm key={loaded.id} benefit={loaded} />}
      </Loaded>
    </EntityPage>
  );
}
