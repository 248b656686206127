import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MeterAggregation, MeterFilter } from '../../../../domain/meter-filter.ts';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, Section } from '../../components/EntityPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, type PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type Meter, metersApi, metersKey } from './api';
import { aggregationText, filterText } from './describe';
import { Quantities } from './Quantities';
import { useMeter } from './useMeter';

/** Archived meters stop counting for new prices; unarchiving needs no confirmation. */
function ArchiveAction({ meter }: { meter: Meter }) {
  const queryClient = useQueryClient();
  const unarchive = useMutation({
    mutationFn: () => metersApi.update(meter.id, { is_archived: false }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: metersKey }),
  });
  if (!meter.archived_at) {
    return (
      <DeleteAction
        label="Archive meter"
        run={() => metersApi.update(meter.id, { is_archived: true })}
        queryKey={metersKey}
      >
        New prices can no longer use it. Its events and past usage stay.
      </DeleteAction>
    );
  }
  return (
    <>
      {unarchive.isError && (
        <span className="field-error" role="alert">
          {unarchive.error.message}
        </span>
      )}
      <button
        type="button"
        className="button"
        disabled={unarchive.isPending}
        onClick={() => unarchive.mutate()}
      >
        Unarchive
      </button>
    </>
  );
}

export default function MeterPage({ params }: PageProps) {
  const id = params.id ?? '';
  const meter = useMeter(id);
  return (
    <EntityPage
      title={meter.data?.name ?? 'Meter'}
      subtitle={meter.data?.archived_at && <StatusBadge tone="neutral">archived</StatusBadge>}
      back={{ to: '/meters', label: 'Meters' }}
      actions={
        meter.data && (
          <>
            <Link to={`/meters/${id}/edit`} className="button">
              Edit
            </Link>
            <ArchiveAction meter={meter.data} />
          </>
        )
      }
    >
      <Loaded query={meter} what="the meter">
        {(loaded) => (
          <>
            <Section title="Definition">
              <Details
                items={[
                  ['Counts', filterText(loaded.filter as MeterFilter)],
                  ['Aggregation', aggregationText(loaded.aggregation as MeterAggregation)],
                  ['Created', <DateTime key="created" value={loaded.created_at} />],
                  ['Archived', <DateTime key="archived" value={loaded.archived_at} />],
                ]}
              />
            </Section>
            <Section title="Usage">
              <Quantities meterId={loaded.id} />
            </Section>
          </>
        )}
      </Loaded>
    </EntityPage>
  );
}
