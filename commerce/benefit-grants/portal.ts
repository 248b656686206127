import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../core/errors.ts';
import {
  BenefitGrant,
  type Customer,
  CustomerOAuthAccount,
  Downloadable,
} from '../../db/entities/index.ts';
import { findPage, type ListQuery, oldestFirst } from '../../db/listing.ts';
import { getCustomerBenefitGrant } from '../customer-portal/service.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import type { CustomerBenefitGrantUpdateInput } from './schemas.ts';
import { accountPlatforms } from './service.ts';

/**
 * The customer's answer to a grant waiting for an account: links the Discord or GitHub account
 * (by its id on the platform) and notes it on the grant. Answers the grant, and whether its
 * workflow should try again with the account. Other types take no properties: nothing changes.
 * Revoked grants cannot be changed (NotPermitted).
 */
export async function updateCustomerBenefitGrant(
  em: EntityManager,
  customer: Customer,
  id: string,
  input: CustomerBenefitGrantUpdateInput,
): Promise<{ grant: BenefitGrant; linked: boolean }> {
  const found = await getCustomerBenefitGrant(em, customer, id);
  if (input.benefit_type !== found.benefit.type) {
    throw invalidField(['body', 'benefit_type'], `The benefit is of type ${found.benefit.type}.`);
  }
  if (found.revokedAt) throw notPermitted('This benefit grant is revoked.');
  const platform = accountPlatforms[found.benefit.type];
  const accountId =
    input.benefit_type === 'discord' || input.benefit_type === 'github_repository'
      ? input.properties.account_id
      : null;
  if (!platform || !accountId) return { grant: found, linked: false };
  const grant = await em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(
      BenefitGrant,
      { id },
      // The grant's row alone (`for update of` its alias), not its benefit's or organization's.
      {
        lockMode: LockMode.PESSIMISTIC_WRITE,
        lockTableAliases: ['b0'],
        populate: ['benefit.organization'],
      },
    );
    const account = await tx.findOne(CustomerOAuthAccount, { customer: customer.id, platform });
    if (!account) {
      tx.create(CustomerOAuthAccount, { customer: customer.id, platform, accountId });
    } else if (account.accountId !== accountId) {
      Object.assign(account, { accountId, accountUsername: null, accessToken: null });
    }
    locked.properties = { ...locked.properties, account_id: accountId };
    return locked;
  });
  return { grant, linked: true };
}

/** The customer's downloadable files, granted and not deleted, of some benefits or organizations. */
export function listCustomerDownloadables(
  em: EntityManager,
  customer: Customer,
  {
    benefitIds,
    organizationIds,
    page,
  }: ListQuery<{ benefitIds: string[]; organizationIds: string[] }>,
): Promise<[Downloadable[], number]> {
  return findPage(em, Downloadable, {
    where: [
      {
        customer: customer.id,
        status: 'granted',
        file: {
          deletedAt: null,
          isUploaded: true,
          ...(organizationIds.length > 0 && { organization: { $in: organizationIds } }),
        },
        benefit: { deletedAt: null, ...(benefitIds.length > 0 && { id: { $in: benefitIds } }) },
      },
    ],
    thenBy: oldestFirst,
    page,
    populate: ['file'],
  });
}

/**
 * A download of a granted file by its signed URL: counted, and answered with the file; a
 * revoked downloadable or a deleted file is not found.
 */
export function recordDownload(em: EntityManager, downloadableId: string) {
  return em.transactional(async (tx) => {
    const downloadable = await tx.findOne(
      Downloadable,
      { id: downloadableId, status: 'granted', file: { deletedAt: null, isUploaded: true } },
      { populate: ['file'] },
    );
    if (!downloadable) throw resourceNotFound('File not found');
    downloadable.downloaded += 1;
    downloadable.lastDownloadedAt = new Date();
    return downloadable.file;
  });
}
