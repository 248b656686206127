import { useEffect, useRef, useState } from 'react';
import { EntityPage } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Link, useSearch } from '../../router';
import { BenefitForm } from './BenefitForm';
import { completeConnection, connectionCallback } from './connections';

export default function NewBenefitPage() {
  const callback = connectionCallback(useSearch());
  return (
    <EntityPage title="New benefit" back={{ to: '/benefits', label: 'Benefits' }}>
      {callback ? (
        <CompleteConnection provider={callback.provider} query={callback.query} />
      ) : (
        <BenefitForm />
      )}
    </EntityPage>
  );
}

/** Back from Discord or GitHub: the API completes the connection, then the form is back. */
function CompleteConnection({
  provider,
  query,
}: Pick<NonNullable<ReturnType<typeof connectionCallback>>, 'provider' | 'query'>) {
  const [error, setError] = useState<Error | null>(null);
  const key = JSON.stringify(query);
  // Once: the code is spent by the first try (React may run an effect twice in development).
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    completeConnection(provider, JSON.parse(key)).catch(setError);
  }, [provider, key]);
  const service = provider === 'discord' ? 'Discord' : 'GitHub';
  if (error) {
    return (
      <ErrorMessage title={`Connecting ${service} failed`} error={error}>
        <Link to="/benefits/new" className="button">
          Back to the form
        </Link>
      </ErrorMessage>
    );
  }
  return <p role="status">Connecting {service}…</p>;
}
