import { z } from 'zod';
import type { Benefit, BenefitGrant } from '../../db/entities/index.ts';
import {
  descriptionLength,
  licenseKeyLimits,
  visibleGrantProperties,
} from '../../domain/benefit-properties.ts';
import { type BenefitType, benefitTypes, githubPermissions } from '../../domain/benefit-types.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { grantPropertiesWireSchema } from '../benefit-grants/schemas.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

const licenseKeyTimeframes = ['year', 'month', 'day'] as const;

/** Each type's `properties` as create and update bodies carry them (Polar's `*CreateProperties`). */
const benefitPropertiesInput = {
  custom: z.object({ note: z.string().nullable().optional() }),
  discord: z.object({
    guild_token: z.string().min(1),
    role_id: z.string().min(1),
    kick_member: z.boolean(),
  }),
  github_repository: z.object({
    repository_owner: z.string().min(1),
    repository_name: z.string().min(1),
    permission: z.enum(githubPermissions),
  }),
  downloadables: z.object({
    archived: z.record(z.uuid(), z.boolean()).optional(),
    files: z.array(z.uuid()).min(1),
  }),
  license_keys: z.object({
    prefix: z.string().min(1).nullable().optional(),
    expires: z
      .object({ ttl: z.int().positive(), timeframe: z.enum(licenseKeyTimeframes) })
      .nullable()
      .optional(),
    activations: z
      .object({
        limit: z.int().min(1).max(licenseKeyLimits.maximumActivations),
        enable_customer_admin: z.boolean(),
      })
      .nullable()
      .optional(),
    limit_usage: z.int().positive().nullable().optional(),
  }),
  meter_credit: z.object({
    units: z.int32().positive(),
    rollover: z.boolean(),
    meter_id: z.uuid(),
  }),
} satisfies Record<BenefitType, z.ZodType>;

type PropertiesInputs = typeof benefitPropertiesInput;
/** The properties of one benefit type, as validated from a request. */
export type BenefitPropertiesInput = {
  [Type in BenefitType]: { type: Type; properties: z.infer<PropertiesInputs[Type]> };
}[BenefitType];

const description = z.string().min(descriptionLength.minimum).max(descriptionLength.maximum);

const createVariant = <Type extends BenefitType>(type: Type) =>
  z.object({
    type: z.literal(type),
    description,
    properties: benefitPropertiesInput[type],
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullable().optional(),
  });

export const benefitCreateInput = z.discriminatedUnion('type', [
  createVariant('custom'),
  createVariant('discord'),
  createVariant('github_repository'),
  createVariant('downloadables'),
  createVariant('license_keys'),
  createVariant('meter_credit'),
]);
export type BenefitCreateInput = z.infer<typeof benefitCreateInput>;

/** An update names the benefit's type; absent or null fields keep their value. */
const updateVariant = <Type extends BenefitType>(type: Type) =>
  z.object({
    type: z.literal(type),
    description: description.nullable().optional(),
    properties: benefitPropertiesInput[type].nullable().optional(),
    metadata: metadataInput.optional(),
  });

export const benefitUpdateInput = z.discriminatedUnion('type', [
  updateVariant('custom'),
  updateVariant('discord'),
  updateVariant('github_repository'),
  updateVariant('downloadables'),
  updateVariant('license_keys'),
  updateVariant('meter_credit'),
]);
export type BenefitUpdateInput = z.infer<typeof benefitUpdateInput>;

export const benefitSortFields = ['created_at', 'description', 'type'] as const;
export const benefitGrantSortFields = ['created_at', 'granted_at', 'revoked_at'] as const;

export const benefitListQuery = z
  .object({ query: z.string().trim().min(1).nullable().optional() })
  .loose();

type StoredProperties = Record<string, unknown>;

const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
const integerOrNull = (value: unknown) => (typeof value === 'number' ? value : null);

/** The types whose buyers see the same properties as the seller (the portal's subscriber view). */
export const benefitCustomPropertiesWireSchema = z
  .object({ note: z.string().nullable() })
  .meta({ id: 'BenefitCustomProperties' });
export const benefitLicenseKeysPropertiesWireSchema = z
  .object({
    prefix: z.string().nullable(),
    expires: z.object({ ttl: z.int(), timeframe: z.enum(licenseKeyTimeframes) }).nullable(),
    activations: z.object({ limit: z.int(), enable_customer_admin: z.boolean() }).nullable(),
    limit_usage: z.int().nullable(),
  })
  .meta({ id: 'BenefitLicenseKeysProperties' });
export const benefitMeterCreditPropertiesWireSchema = z
  .object({ units: z.int(), rollover: z.boolean(), meter_id: z.uuid() })
  .meta({ id: 'BenefitMeterCreditProperties' });

/** Each type's `properties` as answers carry them (Polar's `Benefit*Properties`). */
const benefitPropertiesWireSchema = z.union([
  benefitCustomPropertiesWireSchema,
  z
    .object({
      guild_id: z.string(),
      role_id: z.string(),
      kick_member: z.boolean(),
      guild_token: z.string(),
    })
    .meta({ id: 'BenefitDiscordProperties' }),
  z
    .object({
      repository_owner: z.string(),
      repository_name: z.string(),
      permission: z.enum(githubPermissions),
    })
    .meta({ id: 'BenefitGitHubRepositoryProperties' }),
  z
    .object({ archived: z.record(z.string(), z.boolean()), files: z.array(z.uuid()) })
    .meta({ id: 'BenefitDownloadablesProperties' }),
  benefitLicenseKeysPropertiesWireSchema,
  benefitMeterCreditPropertiesWireSchema,
]);

/** Polar's `BenefitPublic`: the benefit as buyers see it. */
export const benefitPublicWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    type: z.enum(benefitTypes),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    organization_id: z.uuid(),
  })
  .meta({ id: 'BenefitPublic' });

/** Polar's `Benefit`: `properties` take the shape of the benefit's `type`. */
export const benefitWireSchema = benefitPublicWireSchema
  .extend({ metadata: metadataWireSchema, properties: benefitPropertiesWireSchema })
  .meta({ id: 'Benefit' });

/** Polar's `BenefitGrant`: `properties` are what the grant made (a license key id, a role). */
export const benefitGrantWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    granted_at: dateTimeWireSchema.nullable(),
    is_granted: z.boolean(),
    revoked_at: dateTimeWireSchema.nullable(),
    is_revoked: z.boolean(),
    subscription_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    customer_id: z.uuid(),
    benefit_id: z.uuid(),
    error: z.object({ message: z.string(), type: z.string(), timestamp: z.string() }).nullable(),
    customer: customerWireSchema,
    benefit: benefitWireSchema,
    properties: grantPropertiesWireSchema,
  })
  .meta({ id: 'BenefitGrant' });

/** Each type's `properties` exactly as Polar's read schemas list them, every key present. */
const propertiesWire = {
  custom: (stored: StoredProperties) => ({ note: textOrNull(stored.note) }),
  discord: (stored: StoredProperties) => ({
    guild_id: String(stored.guild_id),
    role_id: String(stored.role_id),
    kick_member: stored.kick_member === true,
    guild_token: String(stored.guild_token),
  }),
  github_repository: (stored: StoredProperties) => ({
    repository_owner: String(stored.repository_owner),
    repository_name: String(stored.repository_name),
    permission: stored.permission as (typeof githubPermissions)[number],
  }),
  downloadables: (stored: StoredProperties) => ({
    archived: (stored.archived ?? {}) as Record<string, boolean>,
    files: (stored.files ?? []) as string[],
  }),
  license_keys: (stored: StoredProperties) => ({
    prefix: textOrNull(stored.prefix),
    expires: (stored.expires ?? null) as {
      ttl: number;
      timeframe: (typeof licenseKeyTimeframes)[number];
    } | null,
    activations: (stored.activations ?? null) as {
      limit: number;
      enable_customer_admin: boolean;
    } | null,
    limit_usage: integerOrNull(stored.limit_usage),
  }),
  meter_credit: (stored: StoredProperties) => ({
    units: Number(stored.units),
    rollover: stored.rollover === true,
    meter_id: String(stored.meter_id),
  }),
} satisfies Record<BenefitType, (stored: StoredProperties) => unknown>;

/** A benefit as /v1 answers it (Polar's `Benefit` union, discriminated by `type`). */
export function benefitWire(benefit: Benefit): z.input<typeof benefitWireSchema> {
  return {
    ...benefitPublicWire(benefit),
    metadata: benefit.metadata,
    properties: propertiesWire[benefit.type](benefit.properties),
  };
}
export type BenefitWire = ReturnType<typeof benefitWire>;

/** The benefit as buyers see it on a product or checkout (Polar's `BenefitPublic`). */
export function benefitPublicWire(benefit: Benefit): z.input<typeof benefitPublicWireSchema> {
  return {
    id: benefit.id,
    created_at: isoDateTime(benefit.createdAt),
    modified_at: isoDateTimeOrNull(benefit.modifiedAt),
    type: benefit.type,
    description: benefit.description,
    selectable: benefit.selectable,
    deletable: benefit.deletable,
    organization_id: benefit.organization.id,
  };
}

/**
 * A grant as /v1 answers it (Polar's `BenefitGrant`), with its customer and benefit loaded.
 * Granted means granted and not revoked since.
 */
export function benefitGrantWire(grant: BenefitGrant): z.input<typeof benefitGrantWireSchema> {
  return {
    id: grant.id,
    created_at: isoDateTime(grant.createdAt),
    modified_at: isoDateTimeOrNull(grant.modifiedAt),
    granted_at: isoDateTimeOrNull(grant.grantedAt),
    is_granted: grant.grantedAt != null && grant.revokedAt == null,
    revoked_at: isoDateTimeOrNull(grant.revokedAt),
    is_revoked: grant.revokedAt != null,
    subscription_id: grant.subscriptionId ?? null,
    order_id: grant.orderId ?? null,
    customer_id: grant.customer.id,
    benefit_id: grant.benefit.id,
    error: grant.error ?? null,
    customer: customerWire(grant.customer),
    benefit: benefitWire(grant.benefit),
    properties: visibleGrantProperties(grant.benefit.type, grant.properties),
  };
}
export type BenefitGrantWire = ReturnType<typeof benefitGrantWire>;
