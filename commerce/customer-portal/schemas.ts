import type {
  Benefit,
  BenefitGrant,
  Customer,
  CustomerOAuthAccount,
} from '../../db/entities/index.ts';
import { visibleGrantProperties } from '../../domain/benefit-properties.ts';
import { benefitWire } from '../benefits/schemas.ts';
import { addressWire } from '../customers/schemas.ts';
import type { OrderWire } from '../orders/schemas.ts';
import { type OrganizationWire, organizationWire } from '../organizations/schemas.ts';
import type { ProductWire } from '../products/service.ts';
import { isoDateTime, isoDateTimeOrNull } from '../wire.ts';

/** The customer as its own portal session sees it (Polar's `CustomerPortalCustomer`). */
export function customerPortalCustomerWire(
  customer: Customer,
  oauthAccounts: CustomerOAuthAccount[],
) {
  return {
    id: customer.id,
    created_at: isoDateTime(customer.createdAt),
    modified_at: isoDateTimeOrNull(customer.modifiedAt),
    email: customer.email,
    email_verified: customer.emailVerified,
    name: customer.name ?? null,
    // Customers keep one name: it is also the name invoices are made out to.
    billing_name: customer.name ?? null,
    billing_address: customer.billingAddress ? addressWire(customer.billingAddress) : null,
    tax_id: customer.taxId ?? null,
    oauth_accounts: Object.fromEntries(
      oauthAccounts.map((account) => [
        account.platform,
        { account_id: account.accountId, account_username: account.accountUsername ?? null },
      ]),
    ),
  };
}
export type CustomerPortalCustomerWire = ReturnType<typeof customerPortalCustomerWire>;

/**
 * What a buyer may see of a benefit's settings (Polar's `Benefit*SubscriberProperties`): never
 * the seller's Discord guild token or a GitHub permission.
 */
function subscriberProperties(benefit: Benefit) {
  const properties = benefitWire(benefit).properties as Record<string, unknown>;
  switch (benefit.type) {
    case 'discord':
      return { guild_id: properties.guild_id };
    case 'github_repository':
      return {
        repository_owner: properties.repository_owner,
        repository_name: properties.repository_name,
      };
    case 'downloadables': {
      const archived = properties.archived as Record<string, boolean>;
      return { active_files: (properties.files as string[]).filter((id) => !archived[id]) };
    }
    default:
      return properties;
  }
}

/**
 * A grant as the customer's portal answers it (Polar's `CustomerBenefitGrant*`), with its
 * benefit and the benefit's organization loaded.
 */
export function customerBenefitGrantWire(
  grant: BenefitGrant,
  customer: CustomerPortalCustomerWire,
) {
  const { benefit } = grant;
  return {
    id: grant.id,
    created_at: isoDateTime(grant.createdAt),
    modified_at: isoDateTimeOrNull(grant.modifiedAt),
    granted_at: isoDateTimeOrNull(grant.grantedAt),
    revoked_at: isoDateTimeOrNull(grant.revokedAt),
    customer_id: grant.customer.id,
    benefit_id: benefit.id,
    subscription_id: grant.subscriptionId ?? null,
    order_id: grant.orderId ?? null,
    is_granted: grant.grantedAt != null && grant.revokedAt == null,
    is_revoked: grant.revokedAt != null,
    customer,
    benefit: {
      ...benefitWire(benefit),
      organization: organizationWire(benefit.organization),
      properties: subscriberProperties(benefit),
    },
    properties: visibleGrantProperties(benefit.type, grant.properties),
  };
}

export const customerBenefitGrantSortFields = ['granted_at', 'type', 'organization'] as const;
export type CustomerBenefitGrantSortField = (typeof customerBenefitGrantSortFields)[number];

export const customerOrderSortFields = [
  'created_at',
  'amount',
  'net_amount',
  'product',
  'subscription',
] as const;
export type CustomerOrderSortField = (typeof customerOrderSortFields)[number];

/** The seller's metadata is not the buyer's to see. */
const withoutMetadata = <Wire extends { metadata: unknown }>({ metadata: _, ...rest }: Wire) =>
  rest;

/**
 * An order as its customer sees it (Polar's `CustomerOrder`): the seller's order without its
 * metadata, custom field data, customer and discount; the product with its prices, public
 * benefits, medias and organization.
 */
export function customerOrderWire(
  order: OrderWire,
  product: ProductWire,
  organization: OrganizationWire,
) {
  const {
    custom_field_data: _customFieldData,
    customer: _customer,
    discount: _discount,
    ...visible
  } = withoutMetadata(order);
  const { attached_custom_fields: _fields, ...productVisible } = withoutMetadata(product);
  return {
    ...visible,
    subscription: visible.subscription && withoutMetadata(visible.subscription),
    product: {
      ...productVisible,
      benefits: product.benefits.map((benefit) => {
        const { properties: _properties, ...benefitPublic } = withoutMetadata(benefit);
        return benefitPublic;
      }),
      organization,
    },
  };
}
