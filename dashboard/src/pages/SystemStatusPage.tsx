import { useQuery } from '@tanstack/react-query';
import { fetchHealthInfo, fetchReadiness, type Readiness } from '../api/health';
import { DateTime } from '../components/DateTime';
import { ErrorMessage } from '../components/ErrorMessage';
import { ReadinessTable } from '../components/ReadinessTable';
import { StatusBadge } from '../components/StatusBadge';

const READINESS_POLL_INTERVAL_MS = 5_000;

export default function SystemStatusPage() {
  const readiness = useQuery({
    queryKey: ['health', 'ready'],
    queryFn: ({ signal }) => fetchReadiness(signal),
    refetchInterval: READINESS_POLL_INTERVAL_MS,
    // Polling already tries again every few seconds; retries would only delay the error state.
    retry: false,
  });
  const info = useQuery({
    queryKey: ['health', 'info'],
    queryFn: ({ signal }) => fetchHealthInfo(signal),
  });
  const temporalUiUrl = info.data?.temporalUiUrl;

  return (
    <section className="page">
      <header className="page-header">
        <h1>System status</h1>
        {temporalUiUrl && (
          <a href={temporalUiUrl} target="_blank" rel="noreferrer">
            Temporal Web UI
          </a>
        )}
      </header>

      {readiness.isError && (
        <ErrorMessage title="Could not load service readiness" error={readiness.error} />
      )}
      {readiness.isPending && <p className="muted">Checking services…</p>}
      {readiness.data && (
        <>
          <ReadinessSummary readiness={readiness.data} />
          <ReadinessTable checks={readiness.data.checks} />
        </>
      )}
    </section>
  );
}

function ReadinessSummary({ readiness }: { readiness: Readiness }) {
  return (
    <dl className="summary">
      <div>
        <dt>Overall</dt>
        <dd>
          <StatusBadge status={readiness.status} />
        </dd>
      </div>
      <div>
        <dt>Checked at</dt>
        <dd>
          <DateTime value={readiness.checkedAt} />
        </dd>
      </div>
    </dl>
  );
}
