import { EntityPage } from '../../components/EntityPage';
import type { PageProps } from '../../router';
import { Loaded } from '../catalog/Loaded';
import { MeterForm } from './MeterForm';
import { useMeter } from './useMeter';

export default function EditMeterPage({ params }: PageProps) {
  const id = params.id ?? '';
  const meter = useMeter(id);
  return (
    <EntityPage
      title={meter.data ? `Edit ${meter.data.name}` : 'Edit meter'}
      back={{ to: `/meters/${id}`, label: meter.data?.name ?? 'Meter' }}
    >
      {/* Keyed by the meter: a refetch must not reset what is being typed. */}
      <Loaded query={meter} what="the meter">
        {(loaded) => <MeterForm key={loaded.id} meter={loaded} />}
      </Loaded>
    </EntityPage>
  );
}
