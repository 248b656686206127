import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, Section } from '../../components/EntityPage';
import { Link, type PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type Benefit, benefitsApi, benefitsKey, benefitTypeLabel } from './api';
import { GrantsTable } from './GrantsTable';
import { useBenefit } from './useBenefit';

/** A benefit's settings, read-only here (Edit changes them), as label/value pairs. */
function settingsOf(benefit: Benefit): [string, string][] {
  return Object.entries(benefit.properties as Record<string, unknown>)
    .filter(([key]) => key !== 'guild_token' && key !== 'archived')
    .map(([key, value]) => [
      key.replaceAll('_', ' '),
      value === null ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value),
    ]);
}

export default function BenefitPage({ params }: PageProps) {
  const id = params.id ?? '';
  const benefit = useBenefit(id);
  const deletable = benefit.data?.deletable ?? false;
  return (
    <EntityPage
      title={benefit.data?.description ?? 'Benefit'}
      subtitle={benefit.data && benefitTypeLabel(benefit.data.type)}
      back={{ to: '/benefits', label: 'Benefits' }}
      actions={
        benefit.data && (
          <>
            <Link to={`/benefits/${id}/edit`} className="button">
              Edit
            </Link>
            {deletable && (
              <DeleteAction
                label="Delete benefit"
                run={() => benefitsApi.delete(id)}
                queryKey={benefitsKey}
                then="/benefits"
              >
                Every customer who has it loses it (its grants are revoked), and products no longer
                include it.
              </DeleteAction>
            )}
          </>
        )
      }
    >
      <Loaded query={benefit} what="the benefit">
        {(loaded) => (
          <>
            <Section title="Settings">
              <Details
                items={[
                  ...settingsOf(loaded),
                  ['Created', <DateTime key="created" value={loaded.created_at} />],
                ]}
              />
            </Section>
            <Section title="Grants">
              <GrantsTable benefitId={loaded.id} />
            </Section>
          </>
        )}
      </Loaded>
    </EntityPage>
  );
}
