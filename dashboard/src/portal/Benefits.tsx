import type { BenefitGrant, PortalCustomer } from './api';
import { Loaded, useAction, usePortal, useResource } from './resource';

/** The platforms whose account a grant waits for, by benefit type. */
const platforms: Record<string, { id: string; name: string }> = {
  discord: { id: 'discord', name: 'Discord' },
  github_repository: { id: 'github', name: 'GitHub' },
};

const typeLabels: Record<string, string> = {
  custom: 'Perk',
  discord: 'Discord access',
  github_repository: 'GitHub repository access',
  downloadables: 'Files',
  license_keys: 'License key',
  meter_credit: 'Usage credits',
};

/**
 * The platform whose account a grant waits for the customer to link; none once the grant has an
 * account or the customer linked one on that platform (the grant is then being given).
 */
export function waitsForAccount(grant: BenefitGrant, customer: PortalCustomer) {
  const platform = platforms[grant.benefit.type];
  if (!platform || grant.is_granted || grant.is_revoked || grant.properties.account_id) return;
  return customer.oauth_accounts[platform.id] ? undefined : platform;
}

/** What the customer's purchases give them, and "Connect …" where a grant waits for an account. */
export function Benefits({ linkError }: { linkError: string | null }) {
  const grants = useResource(async (api) => {
    const [page, customer] = await Promise.all([api.grants(), api.customer()]);
    return { items: page.items, customer };
  });
  return (
    <section aria-labelledby="benefits-title">
      <h2 id="benefits-title">Benefits</h2>
      {linkError && (
        <p className="banner-error" role="alert">
          The account could not be connected ({linkError}). Try again.
        </p>
      )}
      <Loaded resource={grants} what="your benefits">
        {({ items, customer }) => {
          const shown = items.filter((grant) => !grant.is_revoked);
          return shown.length === 0 ? (
            <p className="portal-empty">No benefits yet.</p>
          ) : (
            <ul className="portal-cards">
              {shown.map((grant) => (
                <GrantCard key={grant.id} grant={grant} customer={customer} />
              ))}
            </ul>
          );
        }}
      </Loaded>
    </section>
  );
}

function GrantCard({ grant, customer }: { grant: BenefitGrant; customer: PortalCustomer }) {
  const { api } = usePortal();
  const { busy, problem, run } = useAction();
  const { benefit } = grant;
  const platform = waitsForAccount(grant, customer);
  const connect = (id: string) =>
    run(async () => {
      const { url } = await api.linkAccount(id, window.location.href);
      window.location.assign(url);
    });
  return (
    <li className="portal-card">
      <strong>{benefit.description}</strong>
      <p className="muted">{typeLabels[benefit.type] ?? benefit.type}</p>
      {grant.is_granted ? (
        benefit.type === 'custom' &&
        benefit.properties.note && <p className="note">{benefit.properties.note}</p>
      ) : platform ? (
        <>
          <p>Connect your {platform.name} account to get this.</p>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => connect(platform.id)}
          >
            Connect {platform.name}
          </button>
        </>
      ) : (
        <p className="muted">Being granted…</p>
      )}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}
