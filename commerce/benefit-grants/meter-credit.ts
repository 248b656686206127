import type { EntityManager } from '@mikro-orm/postgresql';
import type { BenefitGrant } from '../../db/entities/index.ts';
import { creditCustomerMeter } from '../customer-meters/service.ts';

interface MeterCreditProperties {
  units: number;
  rollover: boolean;
  meter_id: string;
}

/**
 * Credits the benefit's units on the customer's meter. The credit is named after the grant and
 * when it was granted (`grantedAt`), so a retried activity credits once and a grant given again
 * after a revocation credits again. Answers the grant's properties.
 */
export async function creditMeter(em: EntityManager, grant: BenefitGrant, grantedAt: Date) {
  const { units, rollover, meter_id } = grant.benefit
    .properties as unknown as MeterCreditProperties;
  await creditCustomerMeter(em, {
    organizationId: grant.benefit.organization.id,
    customerId: grant.customer.id,
    meterId: meter_id,
    units,
    rollover,
    grantId: `${grant.id}:${grantedAt.toISOString()}`,
  });
  return {
    last_credited_meter_id: meter_id,
    last_credited_units: units,
    last_credited_at: grantedAt.toISOString(),
  };
}

/**
 * A new period: the meter starts again from zero with `units` credited (plus the unused whole
 * units when the benefit rolls over). Once per period; answers the grant's new properties, or
 * null when this period was already credited.
 */
export async function renewMeterCredit(em: EntityManager, grant: BenefitGrant, periodStart: Date) {
  const { units, rollover, meter_id } = grant.benefit
    .properties as unknown as MeterCreditProperties;
  const result = await creditCustomerMeter(em, {
    organizationId: grant.benefit.organization.id,
    customerId: grant.customer.id,
    meterId: meter_id,
    units,
    rollover,
    grantId: grant.id,
    cycle: { periodStart },
  });
  if (!result.applied) return null;
  return {
    last_credited_meter_id: meter_id,
    last_credited_units: units,
    last_credited_at: new Date().toISOString(),
  };
}

/** Takes back the units the grant last credited (a negative credit), once per grant given. */
export async function withdrawMeterCredit(em: EntityManager, grant: BenefitGrant) {
  const { last_credited_meter_id, last_credited_units } = grant.properties as {
    last_credited_meter_id?: string;
    last_credited_units?: number;
  };
  if (!last_credited_meter_id || !last_credited_units || !grant.grantedAt) return;
  const { rollover } = grant.benefit.properties as unknown as MeterCreditProperties;
  await creditCustomerMeter(em, {
    organizationId: grant.benefit.organization.id,
    customerId: grant.customer.id,
    meterId: last_credited_meter_id,
    units: -last_credited_units,
    rollover,
    grantId: `${grant.id}:${grant.grantedAt.toISOString()}:revoked`,
  });
}
