import { defineEntity, p } from '@mikro-orm/core';
import { Benefit } from './benefit.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Organization } from './organization.ts';

export const licenseKeyStatuses = ['granted', 'revoked', 'disabled'] as const;
export type LicenseKeyStatus = (typeof licenseKeyStatuses)[number];

/** The key a license_keys grant gives one customer; looked up by (organization, key). */
const LicenseKeySchema = defineEntity({
  name: 'LicenseKey',
  tableName: 'license_keys',
  uniques: [{ properties: ['organization', 'key'] }, { properties: ['customer', 'benefit'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    benefit: () => p.manyToOne(Benefit).deleteRule('cascade').index(),
    key: p.string(),
    displayKey: p.string(),
    status: p.enum(licenseKeyStatuses),
    limitActivations: p.integer().nullable(),
    usage: p.integer().default(0),
    limitUsage: p.integer().nullable(),
    validations: p.integer().default(0),
    lastValidatedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class LicenseKey extends LicenseKeySchema.class {}
LicenseKeySchema.setClass(LicenseKey);

/** A device or install a license key is activated on; deactivation is soft and frees the slot. */
const LicenseKeyActivationSchema = defineEntity({
  name: 'LicenseKeyActivation',
  tableName: 'license_key_activations',
  properties: {
    id: idColumn(),
    licenseKey: () => p.manyToOne(LicenseKey).deleteRule('cascade').index(),
    label: p.string(),
    meta: metadataColumn(),
    conditions: metadataColumn(),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class LicenseKeyActivation extends LicenseKeyActivationSchema.class {}
LicenseKeyActivationSchema.setClass(LicenseKeyActivation);
