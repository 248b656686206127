import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import {
  cycleBenefit,
  type GrantOutcome,
  type GrantSource,
  type GrantTarget,
  grantBenefit,
  type RevocationOutcome,
  recordGrantError,
  revokeBenefit,
  updateGrantedBenefit,
} from '../commerce/benefit-grants/service.ts';
import type { BenefitIntegrationsConfig } from '../config/env.ts';
import { BenefitGrant, ProductBenefit } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import {
  type BenefitGrantInput,
  type BenefitGrantRequest,
  benefitGrantRequest,
} from '../workflows/benefit-grant.ts';
import { workflowIds } from '../workflows/ids.ts';

export interface BenefitGrantsRequest {
  organizationId: string;
  customerId: string;
  productId: string;
  orderId?: string | null | undefined;
  subscriptionId?: string | null | undefined;
}

export type BenefitRevocationsRequest = Omit<BenefitGrantsRequest, 'organizationId'>;

/**
 * Signals the grant workflow of a customer and benefit, starting it when none runs (one
 * workflow per customer × benefit: several orders granting a benefit meet in the same one).
 * Tests pass a task queue of their own to reach a worker they started.
 */
export function requestGrantChange(
  temporal: Client,
  input: BenefitGrantInput,
  request: BenefitGrantRequest,
  taskQueue: string = taskQueues.main,
) {
  return temporal.workflow.signalWithStart('benefitGrant', {
    workflowId: workflowIds.benefitGrant(input.customerId, input.benefitId),
    taskQueue,
    args: [input],
    signal: benefitGrantRequest,
    signalArgs: [request],
  });
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
  for (const grant of grants) {
    await requestGrantChange(
      temporal,
      {
        organizationId: grant.benefit.organization.id,
        customerId: grant.customer.id,
        benefitId: grant.benefit.id,
      },
      { action: 'revoke', force: true, orderId: null, subscriptionId: null },
    );
  }
}

/** The seller changed a benefit's settings: each grant given of it follows, in its workflow. */
export async function updateGrantsOfBenefit(
  em: EntityManager,
  temporal: Client,
  benefitId: string,
) {
  const grants = await em.find(
    BenefitGrant,
    { benefit: benefitId, revokedAt: null, grantedAt: { $ne: null } },
    { populate: ['benefit'] },
  );
  for (const grant of grants) {
    await requestGrantChange(
      temporal,
      {
        organizationId: grant.benefit.organization.id,
        customerId: grant.customer.id,
        benefitId,
      },
      { action: 'update' },
    );
  }
}

/**
 * The activities of benefit grants: handing orders' and subscriptions' benefits to their grant
 * workflows, and the grant workflow's own grant and revoke steps. Discord and GitHub are called
 * at the configured base URLs (the environment's, unless `integrations` is given).
 */
export function createBenefitGrantActivities(
  { orm, temporal }: { orm: Orm; temporal: Client },
  integrations: BenefitIntegrationsConfig,
) {
  /** Runs a grant step; a failure is noted on the grant before Temporal retries the step. */
  async function noting<Outcome>(target: GrantTarget, step: () => Promise<Outcome>) {
    try {
      return await step();
    } catch (error) {
      await recordGrantError(orm.em, target, error);
      throw error;
    }
  }

  return {
    /** Grants every live benefit of the product to the customer (a paid order, a subscription). */
    async requestBenefitGrants({
      organizationId,
      customerId,
      productId,
      orderId = null,
      subscriptionId = null,
    }: BenefitGrantsRequest): Promise<void> {
      const links = await orm.em
        .fork()
        .find(ProductBenefit, { product: productId, benefit: { deletedAt: null } });
      for (const { benefit } of links) {
        await requestGrantChange(
          temporal,
          { organizationId, customerId, benefitId: benefit.id },
          { action: 'grant', orderId, subscriptionId },
        );
      }
    },

    /**
     * Revokes what the order or subscription gave: the product's benefits and any grant it is
     * recorded as the source of. Each workflow keeps the grant while another source still gives it.
     */
    async requestBenefitRevocations({
      customerId,
      productId,
      orderId = null,
      subscriptionId = null,
    }: BenefitRevocationsRequest): Promise<void> {
      const em = orm.em.fork();
      const links = await em.find(
        ProductBenefit,
        { product: productId },
        { populate: ['benefit'] },
      );
      const sources = [
        ...(orderId ? [{ orderId }] : []),
        ...(subscriptionId ? [{ subscriptionId }] : []),
      ];
      const sourced =
        sources.length > 0
          ? await em.find(
              BenefitGrant,
              { customer: customerId, $or: sources },
              { populate: ['benefit'] },
            )
          : [];
      const organizations = new Map<string, string>();
      for (const { benefit } of [...links, ...sourced]) {
        organizations.set(benefit.id, benefit.organization.id);
      }
      for (const [benefitId, organizationId] of organizations) {
        await requestGrantChange(
          temporal,
          { organizationId, customerId, benefitId },
          { action: 'revoke', force: false, orderId, subscriptionId },
        );
      }
    },

    /** The grant workflow's grant step (see grantBenefit); `source` null retries a waiting grant. */
    applyBenefitGrant({
      target,
      source,
    }: {
      target: GrantTarget;
      source: GrantSource | null;
    }): Promise<GrantOutcome> {
      return noting(target, () => grantBenefit(orm.em, integrations, target, source));
    },

    /**
     * A subscription's new period: every grant it holds is cycled (a meter credit renewed).
     * The subscription workflow's activity, at each renewal.
     */
    async requestBenefitCycles({
      customerId,
      subscriptionId,
      periodStart,
    }: {
      customerId: string;
      subscriptionId: string;
      periodStart: string;
    }): Promise<void> {
      const held = await orm.em
        .fork()
        .find(
          BenefitGrant,
          { customer: customerId, subscriptionId, revokedAt: null, grantedAt: { $ne: null } },
          { populate: ['benefit'] },
        );
      for (const { benefit } of held) {
        await requestGrantChange(
          temporal,
          { organizationId: benefit.organization.id, customerId, benefitId: benefit.id },
          { action: 'cycle', periodStart },
        );
      }
    },

    /** The grant workflow's update step (see updateGrantedBenefit). */
    applyBenefitUpdate({ target }: { target: GrantTarget }): Promise<'updated' | 'none'> {
      return noting(target, () => updateGrantedBenefit(orm.em, integrations, target));
    },

    /** The grant workflow's cycle step (see cycleBenefit). */
    applyBenefitCycle({
      target,
      periodStart,
    }: {
      target: GrantTarget;
      periodStart: string;
    }): Promise<'cycled' | 'none'> {
      return noting(target, () => cycleBenefit(orm.em, target, new Date(periodStart)));
    },

    /** The grant workflow's revoke step (see revokeBenefit). */
    applyBenefitRevocation({
      target,
      source,
      force,
    }: {
      target: GrantTarget;
      source: GrantSource;
      force: boolean;
    }): Promise<RevocationOutcome> {
      return noting(target, () =>
        revokeBenefit(orm.em, integrations, target, { ...source, force }),
      );
    },
  };
}

export type BenefitGrantActivities = ReturnType<typeof createBenefitGrantActivities>;
