import { z } from 'zod';
import { customerOAuthPlatforms } from '../../db/entities/customer-access.ts';
import type { Downloadable } from '../../db/entities/index.ts';
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
