import type { EntityManager } from '@mikro-orm/postgresql';
import { type BenefitGrant, LicenseKey } from '../../db/entities/index.ts';
import {
  displayLicenseKey,
  generateLicenseKey,
  type LicenseKeyTimeframe,
  licenseKeyExpiry,
} from '../../domain/license-keys.ts';

interface LicenseKeysProperties {
  prefix?: string | null;
  expires?: { ttl: number; timeframe: LicenseKeyTimeframe } | null;
  activations?: { limit: number; enable_customer_admin: boolean } | null;
  limit_usage?: number | null;
}

/**
 * The customer's key for the benefit: made on the first grant, granted again (same key, limits
 * and expiry as the benefit says now) on a later one. Answers the grant's properties.
 */
export async function grantLicenseKey(em: EntityManager, grant: BenefitGrant, now: Date) {
  const { benefit, customer } = grant;
  const settings = benefit.properties as LicenseKeysProperties;
  const terms = {
    status: 'granted' as const,
    limitActivations: settings.activations?.limit ?? null,
    limitUsage: settings.limit_usage ?? null,
    expiresAt: licenseKeyExpiry(now, settings.expires),
  };
  let licenseKey = await em.findOne(LicenseKey, { customer: customer.id, benefit: benefit.id });
  if (licenseKey) {
    Object.assign(licenseKey, terms);
  } else {
    const key = generateLicenseKey(settings.prefix);
    licenseKey = em.create(LicenseKey, {
      organization: benefit.organization.id,
      customer: customer.id,
      benefit: benefit.id,
      key,
      displayKey: displayLicenseKey(key),
      ...terms,
    });
  }
  await em.flush();
  return { license_key_id: licenseKey.id, display_key: licenseKey.displayKey };
}

/** The key stops validating and activating. */
export async function revokeLicenseKey(em: EntityManager, grant: BenefitGrant) {
  await em.nativeUpdate(
    LicenseKey,
    { customer: grant.customer.id, benefit: grant.benefit.id },
    { status: 'revoked', modifiedAt: new Date() },
  );
}

/**
 * The benefit's settings changed: the key takes its new activation and usage limits (its
 * expiry stays as granted).
 */
export async function updateLicenseKeyLimits(em: EntityManager, grant: BenefitGrant) {
  const settings = grant.benefit.properties as LicenseKeysProperties;
  await em.nativeUpdate(
    LicenseKey,
    { customer: grant.customer.id, benefit: grant.benefit.id, status: 'granted' },
    {
      limitActivations: settings.activations?.limit ?? null,
      limitUsage: settings.limit_usage ?? null,
      modifiedAt: new Date(),
    },
  );
}
