import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { BenefitGrant } from '../db/entities/index.ts';
import type { BenefitGrantRequest } from './benefit-grant.ts';
import { requestGrantChange } from './starters.ts';

/** Sends `request` to the workflow of each grant, one after the other. */
async function requestOfEach(
  temporal: Client,
  grants: BenefitGrant[],
  request: BenefitGrantRequest,
) {
  for (const grant of grants) {
    const input = {
      organizationId: grant.benefit.organization.id,
      customerId: grant.customer.id,
      benefitId: grant.benefit.id,
    };
    await requestGrantChange(temporal, input, request);
  }
}

/**
 * Revokes every grant not yet revoked of a deleted benefit or customer, each through its
 * workflow (which takes a Discord role or repository access back too). Called once the deletion
 * committed: a grant workflow revokes only what is deleted, or no longer given by anything.
 */
export async function revokeGrantsOfDeleted(
  em: EntityManager,
  temporal: Client,
  deleted: { benefitId: string } | { customerId: string },
): Promise<void> {
  const grants = await em.find(
    BenefitGrant,
    {
      revokedAt: null,
      ...('benefitId' in deleted
        ? { benefit: deleted.benefitId }
        : { customer: deleted.customerId }),
    },
    { populate: ['benefit'] },
  );
  await requestOfEach(temporal, grants, {
    action: 'revoke',
    force: true,
    orderId: null,
    subscriptionId: null,
  });
}

/** The seller changed a benefit's settings: each grant given of it follows, in its workflow. */
export async function updateGrantsOfBenefit(
  em: EntityManager,
  temporal: Client,
  benefitId: string,
): Promise<void> {
  const grants = await em.find(
    BenefitGrant,
    { benefit: benefitId, revokedAt: null, grantedAt: { $ne: null } },
    { populate: ['benefit'] },
  );
  await requestOfEach(temporal, grants, { action: 'update' });
}
