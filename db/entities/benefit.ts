import { defineEntity, p } from '@mikro-orm/core';
import { benefitTypes } from '../../domain/benefit-types.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Organization } from './organization.ts';

/** The per-type settings of a benefit, keyed as on the wire (snake_case). */
export type BenefitProperties = Record<string, unknown>;

/** Something a customer gets with a product. Deleting is soft: grants keep pointing at it. */
const BenefitSchema = defineEntity({
  name: 'Benefit',
  tableName: 'benefits',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    type: p.enum(benefitTypes),
    description: p.string(),
    selectable: p.boolean().default(true),
    deletable: p.boolean().default(true),
    properties: p.json<BenefitProperties>(),
    metadata: metadataColumn(),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Benefit extends BenefitSchema.class {}
BenefitSchema.setClass(Benefit);

export interface GrantError {
  message: string;
  type: string;
  timestamp: string;
}

/**
 * A benefit granted to a customer: one row per customer and benefit, whose life (grant, cycle,
 * revoke) the benefit grant workflow runs.
 */
const BenefitGrantSchema = defineEntity({
  name: 'BenefitGrant',
  tableName: 'benefit_grants',
  uniques: [{ properties: ['customer', 'benefit'] }],
  properties: {
    id: idColumn(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    benefit: () => p.manyToOne(Benefit).deleteRule('cascade').index(),
    /** The subscription or order that brought the grant (their tables come later). */
    subscriptionId: p.uuid().nullable(),
    orderId: p.uuid().nullable(),
    grantedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    properties: p.json<Record<string, unknown>>().onCreate(() => ({})),
    error: p.json<GrantError>().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class BenefitGrant extends BenefitGrantSchema.class {}
BenefitGrantSchema.setClass(BenefitGrant);
