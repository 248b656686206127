import { EntityPage } from '../../components/EntityPage';
import { MeterForm } from './MeterForm';

export default function NewMeterPage() {
  return (
    <EntityPage title="New meter" back={{ to: '/meters', label: 'Meters' }}>
      <MeterForm />
    </EntityPage>
  );
}
