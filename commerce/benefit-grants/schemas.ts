import { z } from 'zod';
import type { Downloadable } from '../../db/entities/index.ts';
import { downloadableWire } from '../files/schemas.ts';
import { isoDateTime } from '../wire.ts';

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

/** A granted file with a signed, expiring URL to download it (Polar's `DownloadableRead`). */
export function customerDownloadableWire(
  downloadable: Downloadable,
  download: { url: string; expiresAt: number },
) {
  return {
    id: downloadable.id,
    benefit_id: downloadable.benefit.id,
    file: {
      ...downloadableWire(downloadable.file),
      download: { url: download.url, expires_at: isoDateTime(new Date(download.expiresAt)) },
    },
  };
}
