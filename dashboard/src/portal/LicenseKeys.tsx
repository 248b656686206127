import type { LicenseKeyWithActivations } from './api';
import { formatDate, Loaded, useAction, usePortal, useResource } from './resource';

const keyStatus: Record<string, string> = {
  granted: 'Active',
  revoked: 'Revoked',
  disabled: 'Disabled',
};

/** The customer's license keys, each with the devices it is activated on and "deactivate". */
export function LicenseKeys() {
  const keys = useResource(async (api) => {
    const page = await api.licenseKeys();
    return Promise.all(page.items.map((key) => api.licenseKey(key.id)));
  });
  return (
    <section aria-labelledby="license-keys-title">
      <h2 id="license-keys-title">License keys</h2>
      <Loaded resource={keys} what="your license keys">
        {(items) =>
          items.length === 0 ? (
            <p className="portal-empty">No license keys.</p>
          ) : (
            <ul className="portal-cards">
              {items.map((key) => (
                <LicenseKeyCard key={key.id} licenseKey={key} onChanged={keys.reload} />
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

function LicenseKeyCard({
  licenseKey,
  onChanged,
}: {
  licenseKey: LicenseKeyWithActivations;
  onChanged: () => Promise<void>;
}) {
  const { api } = usePortal();
  const { busy, problem, run } = useAction();
  const { activations } = licenseKey;
  const titleId = `license-key-${licenseKey.id}`;
  return (
    <li className="portal-card">
      <article aria-labelledby={titleId}>
        <header className="portal-card-header">
          <h3 id={titleId}>
            License key <span className="visually-hidden">{licenseKey.display_key}</span>
          </h3>
          <span className={`portal-badge portal-badge-${licenseKey.status}`}>
            {keyStatus[licenseKey.status] ?? licenseKey.status}
          </span>
        </header>
        <p>
          <code className="portal-key" data-testid="license-key">
            {licenseKey.key}
          </code>
        </p>
        {licenseKey.expires_at && (
          <p className="muted">Valid until {formatDate(licenseKey.expires_at)}</p>
        )}
        <h4>
          Activations
          {licenseKey.limit_activations !== null && (
            <span className="muted">
              {' '}
              ({activations.length} of {licenseKey.limit_activations})
            </span>
          )}
        </h4>
        {activations.length === 0 ? (
          <p className="portal-empty">Not activated on any device.</p>
        ) : (
          <ul className="portal-rows">
            {activations.map((activation) => (
              <li key={activation.id}>
                <span>
                  {activation.label}
                  <span className="muted"> · since {formatDate(activation.created_at)}</span>
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={busy}
                  onClick={async () => {
                    const done = await run(() => api.deactivate(licenseKey, activation.id));
                    if (done) await onChanged();
                  }}
                >
                  Deactivate<span className="visually-hidden"> {activation.label}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
      </article>
    </li>
  );
}
