import { type CustomerBenefitGrant, getLicenseKey, type LicenseKey } from './api';

/** A benefit granted to the buyer, as the confirmation page and the portal show it. */
export interface Granted {
  grant: CustomerBenefitGrant;
  licenseKey: LicenseKey | null;
}

// Grants that need nothing from the buyer are expected to become granted on their own.
export const grantsWithoutBuyer = new Set([
  'custom',
  'license_keys',
  'downloadables',
  'meter_credit',
]);

/** The grant with its license key read in full (the grant itself only shows its last characters). */
export async function withLicenseKey(token: string, grant: CustomerBenefitGrant): Promise<Granted> {
  const id = grant.properties.license_key_id;
  if (grant.benefit.type !== 'license_keys' || !grant.is_granted || !id) {
    return { grant, licenseKey: null };
  }
  return { grant, licenseKey: await getLicenseKey(token, id) };
}

export function GrantedBenefit({ grant, licenseKey }: Granted) {
  const { benefit } = grant;
  return (
    <li>
      <strong>{benefit.description}</strong>
      {!grant.is_granted && <span className="muted"> — being granted…</span>}
      {licenseKey && (
        <p>
          License key: <code data-testid="license-key">{licenseKey.key}</code>
          {licenseKey.expires_at && (
            <span className="muted">
              {' '}
              (valid until {new Date(licenseKey.expires_at).toLocaleDateString('en-US')})
            </span>
          )}
        </p>
      )}
      {benefit.type === 'custom' && grant.is_granted && benefit.properties.note && (
        <p className="note">{benefit.properties.note}</p>
      )}
    </li>
  );
}
