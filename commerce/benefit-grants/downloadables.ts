import type { EntityManager } from '@mikro-orm/postgresql';
import { type BenefitGrant, Downloadable, StoredFile } from '../../db/entities/index.ts';

interface DownloadablesProperties {
  files: string[];
  archived?: Record<string, boolean>;
}

/**
 * One downloadable per file of the benefit, granted. Archived files are not given to new
 * holders; a customer who had one keeps it (as Polar). Files the benefit no longer lists stop
 * downloading. Answers the grant's properties.
 */
export async function grantDownloadables(em: EntityManager, grant: BenefitGrant) {
  const { customer, benefit } = grant;
  const { files, archived = {} } = benefit.properties as unknown as DownloadablesProperties;
  const held = await em.find(Downloadable, { customer: customer.id, benefit: benefit.id });
  const heldFiles = new Map(held.map((downloadable) => [downloadable.file.id, downloadable]));
  const live = await em.find(
    StoredFile,
    { id: { $in: files }, deletedAt: null },
    { fields: ['id'] },
  );
  const liveIds = new Set(live.map((file) => file.id));
  const granted: string[] = [];
  for (const fileId of files) {
    if (!liveIds.has(fileId)) continue;
    const existing = heldFiles.get(fileId);
    if (archived[fileId] && !existing) continue;
    if (existing) existing.status = 'granted';
    else
      em.create(Downloadable, {
        customer: customer.id,
        benefit: benefit.id,
        file: fileId,
        status: 'granted',
      });
    granted.push(fileId);
  }
  for (const downloadable of held) {
    if (!granted.includes(downloadable.file.id)) downloadable.status = 'revoked';
  }
  await em.flush();
  return { files: granted };
}

/** Every file of the benefit stops downloading for the customer. */
export async function revokeDownloadables(em: EntityManager, grant: BenefitGrant) {
  await em.nativeUpdate(
    Downloadable,
    { customer: grant.customer.id, benefit: grant.benefit.id },
    { status: 'revoked', modifiedAt: new Date() },
  );
}
