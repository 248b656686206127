import { z } from 'zod';
import type { LicenseKey, LicenseKeyActivation } from '../../db/entities/index.ts';
import { licenseKeyStatuses } from '../../db/entities/license-key.ts';
import { licenseKeyLimits } from '../../domain/benefit-properties.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import {
  dateTimeInput,
  dateTimeWireSchema,
  isoDateTime,
  isoDateTimeOrNull,
  metadataWireSchema,
} from '../wire.ts';

const keyText = z.string().min(1);

/** Polar's `LicenseKeyUpdate`: the SDK always sends `usage` (0 unless set), which then applies. */
export const licenseKeyUpdateInput = z.object({
  status: z.enum(licenseKeyStatuses).nullable().optional(),
  usage: z.int().min(0).default(0),
  limit_activations: z.int().min(1).max(licenseKeyLimits.maximumActivations).nullable().optional(),
  limit_usage: z.int().min(1).nullable().optional(),
  expires_at: dateTimeInput.nullable().optional(),
});
export type LicenseKeyUpdateInput = z.infer<typeof licenseKeyUpdateInput>;

/** Polar's `LicenseKeyValidate`. */
export const licenseKeyValidateInput = z.object({
  key: keyText,
  organization_id: z.uuid(),
  activation_id: z.uuid().nullable().optional(),
  benefit_id: z.uuid().nullable().optional(),
  customer_id: z.uuid().nullable().optional(),
  increment_usage: z.int().min(0).nullable().optional(),
  conditions: metadataInput.default({}),
});
export type LicenseKeyValidateInput = z.infer<typeof licenseKeyValidateInput>;

/** Polar's `LicenseKeyActivate`. */
export const licenseKeyActivateInput = z.object({
  key: keyText,
  organization_id: z.uuid(),
  label: z.string().min(1).max(255),
  conditions: metadataInput.default({}),
  meta: metadataInput.default({}),
});
export type LicenseKeyActivateInput = z.infer<typeof licenseKeyActivateInput>;

/** Polar's `LicenseKeyDeactivate`. */
export const licenseKeyDeactivateInput = z.object({
  key: keyText,
  organization_id: z.uuid(),
  activation_id: z.uuid(),
});
export type LicenseKeyDeactivateInput = z.infer<typeof licenseKeyDeactivateInput>;

/** Polar's `LicenseKeyRead`. */
export const licenseKeyWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    organization_id: z.uuid(),
    customer_id: z.uuid(),
    customer: customerWireSchema,
    benefit_id: z.uuid(),
    key: z.string(),
    display_key: z.string(),
    status: z.enum(licenseKeyStatuses),
    limit_activations: z.int().nullable(),
    usage: z.int(),
    limit_usage: z.int().nullable(),
    validations: z.int(),
    last_validated_at: dateTimeWireSchema.nullable(),
    expires_at: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'LicenseKeyRead' });

/** Polar's `LicenseKeyActivationBase`. */
export const licenseKeyActivationBaseWireSchema = z
  .object({
    id: z.uuid(),
    license_key_id: z.uuid(),
    label: z.string(),
    meta: metadataWireSchema,
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'LicenseKeyActivationBase' });

/** Polar's `LicenseKeyActivationRead`. */
export const licenseKeyActivationWireSchema = licenseKeyActivationBaseWireSchema
  .extend({ license_key: licenseKeyWireSchema })
  .meta({ id: 'LicenseKeyActivationRead' });

/** Polar's `LicenseKeyWithActivations`. */
export const licenseKeyWithActivationsWireSchema = licenseKeyWireSchema
  .extend({ activations: z.array(licenseKeyActivationBaseWireSchema) })
  .meta({ id: 'LicenseKeyWithActivations' });

/** Polar's `ValidatedLicenseKey`: the key, and the activation the check named. */
export const validatedLicenseKeyWireSchema = licenseKeyWireSchema
  .extend({ activation: licenseKeyActivationBaseWireSchema.nullable() })
  .meta({ id: 'ValidatedLicenseKey' });

/** A license key as /v1 answers it (Polar's `LicenseKeyRead`), its customer loaded. */
export function licenseKeyWire(licenseKey: LicenseKey): z.input<typeof licenseKeyWireSchema> {
  return {
    id: licenseKey.id,
    created_at: isoDateTime(licenseKey.createdAt),
    modified_at: isoDateTimeOrNull(licenseKey.modifiedAt),
    organization_id: licenseKey.organization.id,
    customer_id: licenseKey.customer.id,
    customer: customerWire(licenseKey.customer),
    benefit_id: licenseKey.benefit.id,
    key: licenseKey.key,
    display_key: licenseKey.displayKey,
    status: licenseKey.status,
    limit_activations: licenseKey.limitActivations ?? null,
    usage: licenseKey.usage,
    limit_usage: licenseKey.limitUsage ?? null,
    validations: licenseKey.validations,
    last_validated_at: isoDateTimeOrNull(licenseKey.lastValidatedAt),
    expires_at: isoDateTimeOrNull(licenseKey.expiresAt),
  };
}

/** An activation without its key (Polar's `LicenseKeyActivationBase`). */
export function licenseKeyActivationBaseWire(
  activation: LicenseKeyActivation,
): z.input<typeof licenseKeyActivationBaseWireSchema> {
  return {
    id: activation.id,
    license_key_id: activation.licenseKey.id,
    label: activation.label,
    meta: activation.meta,
    created_at: isoDateTime(activation.createdAt),
    modified_at: isoDateTimeOrNull(activation.modifiedAt),
  };
}

/** An activation with its key (Polar's `LicenseKeyActivationRead`). */
export function licenseKeyActivationWire(
  activation: LicenseKeyActivation,
  key: LicenseKey,
): z.input<typeof licenseKeyActivationWireSchema> {
  return { ...licenseKeyActivationBaseWire(activation), license_key: licenseKeyWire(key) };
}

/** A key with its live activations (Polar's `LicenseKeyWithActivations`). */
export function licenseKeyWithActivationsWire(
  key: LicenseKey,
  activations: LicenseKeyActivation[],
): z.input<typeof licenseKeyWithActivationsWireSchema> {
  return { ...licenseKeyWire(key), activations: activations.map(licenseKeyActivationBaseWire) };
}
