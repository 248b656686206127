import { z } from 'zod';
import type { Downloadable } from '../../db/entities/index.ts';
import { customerOAuthPlatforms, githubPermissions } from '../../domain/benefit-types.ts';
import { downloadableWire, downloadableWireSchema } from '../files/schemas.ts';
import { dateTimeWireSchema, isoDateTime } from '../wire.ts';

const accountLink = z.object({ account_id: z.string().min(1).nullable() });

/** Polar's `CustomerBenefitGrantUpdate`: the benefit's type, and for Discord and GitHub the account. */
export const customerBenefitGrantUpdateInput = z.discriminatedUnion('benefit_type', [
  z.object({ benefit_type: z.literal('discord'), properties: accountLink }),
  z.object({ benefit_type: z.literal('github_repository'), properties: accountLink }),
  ...(['custom', 'downloadables', 'license_keys', 'meter_credit'] as const).map((type) =>
    z.object({ benefit_type: z.literal(type), properties: z.object({}).loose().optional() }),
  ),
]);
export type CustomerBenefitGrantUpdateInput = z.infer<typeof customerBenefitGrantUpdateInput>;

/** Which platform's account to link, and where to send the customer back afterwards. */
export const oauthAuthorizeQuery = z
  .object({ platform: z.enum(customerOAuthPlatforms), return_to: z.string().min(1).optional() })
  .loose();

/**
 * A grant's `properties` (Polar's `BenefitGrant*Properties`): what granting made, each key
 * present once known (domain/benefit-properties.ts picks them). The benefit's type, which
 * tells the shapes apart, lives on the benefit, so each shape is closed to the others' keys.
 */
export const grantPropertiesWireSchema = z.union([
  z.strictObject({}).meta({ id: 'BenefitGrantCustomProperties' }),
  z
    .strictObject({
      account_id: z.string().nullable().optional(),
      guild_id: z.string().optional(),
      role_id: z.string().optional(),
      granted_account_id: z.string().optional(),
    })
    .meta({ id: 'BenefitGrantDiscordProperties' }),
  z
    .strictObject({
      account_id: z.string().nullable().optional(),
      repository_owner: z.string().optional(),
      repository_name: z.string().optional(),
      permission: z.enum(githubPermissions).optional(),
      granted_account_id: z.string().optional(),
    })
    .meta({ id: 'BenefitGrantGitHubRepositoryProperties' }),
  z
    .strictObject({ files: z.array(z.uuid()).optional() })
    .meta({ id: 'BenefitGrantDownloadablesProperties' }),
  z
    .strictObject({ license_key_id: z.uuid().optional(), display_key: z.string().optional() })
    .meta({ id: 'BenefitGrantLicenseKeysProperties' }),
  z
    .strictObject({
      last_credited_meter_id: z.uuid().optional(),
      last_credited_units: z.int().optional(),
      last_credited_at: dateTimeWireSchema.optional(),
    })
    .meta({ id: 'BenefitGrantMeterCreditProperties' }),
]);

/** Where to send the customer to consent to the link (Polar's `AuthorizeResponse`). */
export const oauthAuthorizeWireSchema = z
  .object({ url: z.string() })
  .meta({ id: 'AuthorizeResponse' });

/** Polar's `DownloadableRead`: the file with its signed download URL. */
export const customerDownloadableWireSchema = z
  .object({
    id: z.uuid(),
    benefit_id: z.uuid(),
    file: downloadableWireSchema
      .extend({ download: z.object({ url: z.string(), expires_at: dateTimeWireSchema }) })
      .meta({ id: 'FileDownload' }),
  })
  .meta({ id: 'DownloadableRead' });

/** A granted file with a signed, expiring URL to download it (Polar's `DownloadableRead`). */
export function customerDownloadableWire(
  downloadable: Downloadable,
  download: { url: string; expiresAt: number },
): z.input<typeof customerDownloadableWireSchema> {
  return {
    id: downloadable.id,
    benefit_id: downloadable.benefit.id,
    file: {
      ...downloadableWire(downloadable.file),
      download: { url: download.url, expires_at: isoDateTime(new Date(download.expiresAt)) },
    },
  };
}
