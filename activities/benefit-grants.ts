import type { Client } from '@temporalio/client';
import {
  accountPlatforms,
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
import { Benefit, BenefitGrant, ProductBenefit } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { requestGrantChange } from '../processes/starters.ts';

export interface BenefitGrantsRequest {
  organizationId: string;
  customerId: string;
  productId: string;
  orderId?: string | null | undefined;
  subscriptionId?: string | null | undefined;
  /** The product's live benefits when the caller read them already (a completed checkout). */
  benefitIds?: string[] | undefined;
}

export type BenefitRevocationsRequest = Omit<BenefitGrantsRequest, 'organizationId' | 'benefitIds'>;

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

  /** The benefits a grant request gives: the product's live ones, unless the caller read them. */
  async function benefitsGranted({ productId, benefitIds }: BenefitGrantsRequest) {
    if (benefitIds) return benefitIds;
    const links = await orm.em
      .fork()
      .find(ProductBenefit, { product: productId, benefit: { deletedAt: null } });
    return links.map((link) => link.benefit.id);
  }

  return {
    /** Grants every live benefit of the product to the customer (a paid order, a subscription). */
    async requestBenefitGrants(request: BenefitGrantsRequest): Promise<void> {
      const { organizationId, customerId, orderId = null, subscriptionId = null } = request;
      for (const benefitId of await benefitsGranted(request)) {
        await requestGrantChange(
          temporal,
          { organizationId, customerId, benefitId },
          { action: 'grant', orderId, subscriptionId },
        );
      }
    },

    /**
     * A completed checkout's benefits: those the database alone gives (a license key,
     * downloadables, meter credit, a custom note) granted here, in the checkout's own workflow,
     * with no workflow of their own to start; a Discord role or repository access handed to its
     * grant workflow, which waits for the customer's linked account and calls the platform.
     */
    async grantCheckoutBenefits(request: BenefitGrantsRequest): Promise<void> {
      const { organizationId, customerId, orderId = null, subscriptionId = null } = request;
      const benefitIds = await benefitsGranted(request);
      if (benefitIds.length === 0) return;
      const benefits = await orm.em
        .fork()
        .find(Benefit, { id: { $in: benefitIds } }, { fields: ['id', 'type'] });
      for (const benefit of benefits) {
        const target = { customerId, benefitId: benefit.id };
        if (accountPlatforms[benefit.type]) {
          await requestGrantChange(
            temporal,
            { organizationId, ...target },
            { action: 'grant', orderId, subscriptionId },
          );
        } else {
          await noting(target, () =>
            grantBenefit(orm.em, integrations, target, { orderId, subscriptionId }),
          );
        }
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
