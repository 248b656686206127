import { defineSignal } from '@temporalio/workflow';
import type { GrantSource } from '../commerce/benefit-grants/service.ts';

/**
 * A request to the grant workflow of one customer and benefit. `grant` from a paid order or an
 * active subscription; `revoke` when that source stops giving it (the grant stays while another
 * source still does), or unconditionally (`force`) when the benefit or the customer is deleted;
 * `retry` after the customer linked an account the grant was waiting for; `cycle` when the
 * subscription holding the grant starts a new period (ISO `periodStart`); `update` when the
 * seller changed the benefit's settings.
 */
export type BenefitGrantRequest =
  | ({ action: 'grant' } & GrantSource)
  | ({ action: 'revoke'; force: boolean } & GrantSource)
  | { action: 'retry' }
  | { action: 'cycle'; periodStart: string }
  | { action: 'update' };

export const benefitGrantRequest = defineSignal<[BenefitGrantRequest]>('benefitGrantRequest');

/** The input of the grant workflow (`grant:<customer>:<benefit>`, workflows/benefit-grant.ts). */
export interface BenefitGrantInput {
  organizationId: string;
  customerId: string;
  benefitId: string;
  /** Requests a previous run had received but not handled (continue-as-new carries them over). */
  pending?: BenefitGrantRequest[];
}
