import type Stripe from 'stripe';
import { z } from 'zod';
import type {
  Benefit,
  BenefitGrant,
  Customer,
  CustomerOAuthAccount,
} from '../../db/entities/index.ts';
import { addressInput } from '../../domain/addresses.ts';
import { visibleGrantProperties } from '../../domain/benefit-properties.ts';
import { customerOAuthPlatforms } from '../../domain/benefit-types.ts';
import {
  benefitCustomPropertiesWireSchema,
  benefitGrantWireSchema,
  benefitLicenseKeysPropertiesWireSchema,
  benefitMeterCreditPropertiesWireSchema,
  benefitPublicWireSchema,
  benefitWire,
} from '../benefits/schemas.ts';
import {
  addressWire,
  customerBalanceWireSchema,
  customerWireSchema,
} from '../customers/schemas.ts';
import { type OrderWire, orderWireSchema } from '../orders/schemas.ts';
import {
  type OrganizationWire,
  organizationWire,
  organizationWireSchema,
} from '../organizations/schemas.ts';
import { customerProductWireSchema } from '../products/schemas.ts';
import { customerProductWire, type ProductWire } from '../products/service.ts';
import { subscriptionCoreWireSchema } from '../subscriptions/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

/** Polar's `CustomerPortalCustomer`: the linked accounts by platform, no seller metadata. */
export const customerPortalCustomerWireSchema = customerWireSchema
  .pick({
    id: true,
    created_at: true,
    modified_at: true,
    email: true,
    email_verified: true,
    name: true,
    billing_address: true,
    tax_id: true,
  })
  .extend({
    billing_name: z.string().nullable(),
    oauth_accounts: z.partialRecord(
      z.enum(customerOAuthPlatforms),
      z
        .object({ account_id: z.string(), account_username: z.string().nullable() })
        .meta({ id: 'CustomerPortalOAuthAccount' }),
    ),
    default_payment_method_id: z.string().nullable(),
    /** Tollgate's: the customer's credit (CustomerBalance), on /customers/me's own answers. */
    balance: customerBalanceWireSchema.optional(),
  })
  .meta({ id: 'CustomerPortalCustomer' });

/** The customer as its own portal session sees it (Polar's `CustomerPortalCustomer`). */
export function customerPortalCustomerWire(
  customer: Customer,
  oauthAccounts: CustomerOAuthAccount[],
): z.input<typeof customerPortalCustomerWireSchema> {
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
    default_payment_method_id: customer.defaultPaymentMethodId ?? null,
  };
}
export type CustomerPortalCustomerWire = z.input<typeof customerPortalCustomerWireSchema>;

/** Absent keys keep their value; blank text, like null, clears it. */
const clearableText = z
  .string()
  .trim()
  .max(255)
  .nullish()
  .transform((value) => (value === undefined ? undefined : value || null));

/**
 * The customer's own billing details (Polar's `CustomerPortalCustomerUpdate`); the tax id is
 * its bare value, recognised again from the billing country as the seller's API does.
 */
export const portalCustomerUpdateInput = z.object({
  billing_name: clearableText,
  billing_address: addressInput.nullish(),
  tax_id: clearableText,
});
export type PortalCustomerUpdateInput = z.infer<typeof portalCustomerUpdateInput>;

/** Stripe's ids of one kind: a prefix and a tail of letters, digits, `_` and `-`; nothing else goes to Stripe. */
const stripeIdOf = (...prefixes: string[]) =>
  z
    .string()
    .trim()
    .max(255)
    .regex(new RegExp(`^(${prefixes.join('|')})_[\\w-]+$`), 'Invalid identifier.');

/** A payment method of the customer (`pm_…`), as the delete path names it. */
export const paymentMethodParams = z.object({ id: stripeIdOf('pm') });

/**
 * A card to save (Polar's `CustomerPaymentMethodCreate`): Stripe Elements' confirmation token
 * (`ctoken_…`), or a test card (`pm_card_visa`) in sandboxes and tests.
 */
export const paymentMethodCreateInput = z.object({
  confirmation_token_id: stripeIdOf('ctoken', 'pm'),
  set_default: z.boolean(),
  return_url: z.url({ protocol: /^https?$/, message: 'Invalid URL.' }).max(2048),
});
export type PaymentMethodCreateInput = z.infer<typeof paymentMethodCreateInput>;

/** The SetupIntent a card's 3-D Secure step finished (Polar's `CustomerPaymentMethodConfirm`). */
export const paymentMethodConfirmInput = z.object({
  setup_intent_id: stripeIdOf('seti'),
  set_default: z.boolean(),
});
export type PaymentMethodConfirmInput = z.infer<typeof paymentMethodConfirmInput>;

/** Polar's `CustomerPaymentMethod` (`PaymentMethodCard` or `PaymentMethodGeneric`). */
export const customerPaymentMethodWireSchema = z
  .object({
    id: z.string(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    processor: z.literal('stripe'),
    customer_id: z.uuid(),
    type: z.string(),
    method_metadata: z
      .object({
        brand: z.string(),
        last4: z.string(),
        exp_month: z.int(),
        exp_year: z.int(),
        wallet: z.string().nullable(),
      })
      .meta({ id: 'PaymentMethodCardMetadata' })
      .optional(),
  })
  .meta({ id: 'CustomerPaymentMethod' });

/** A saved payment method (Polar's `CustomerPaymentMethod`): a card shows its brand and digits. */
export function customerPaymentMethodWire(
  method: Stripe.PaymentMethod,
  customerId: string,
): z.input<typeof customerPaymentMethodWireSchema> {
  const { card } = method;
  return {
    id: method.id,
    created_at: isoDateTime(new Date(method.created * 1000)),
    modified_at: null,
    processor: 'stripe' as const,
    customer_id: customerId,
    type: method.type,
    ...(card && {
      method_metadata: {
        brand: card.brand,
        last4: card.last4,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        wallet: card.wallet?.type ?? null,
      },
    }),
  };
}

/** What adding (or confirming) a card came to (Polar's `CustomerPaymentMethodCreateResponse`). */
export type PaymentMethodSetup =
  | { status: 'succeeded'; paymentMethod: Stripe.PaymentMethod }
  | { status: 'requires_action'; clientSecret: string; nextActionUrl: string | null };

/** Polar's `CustomerPaymentMethodCreateResponse`, by `status`. */
export const paymentMethodSetupWireSchema = z
  .discriminatedUnion('status', [
    z.object({ status: z.literal('succeeded'), payment_method: customerPaymentMethodWireSchema }),
    z.object({
      status: z.literal('requires_action'),
      client_secret: z.string(),
      next_action_url: z.string().optional(),
    }),
  ])
  .meta({ id: 'CustomerPaymentMethodCreateResponse' });

export const paymentMethodSetupWire = (
  setup: PaymentMethodSetup,
  customerId: string,
): z.input<typeof paymentMethodSetupWireSchema> =>
  setup.status === 'succeeded'
    ? {
        status: setup.status,
        payment_method: customerPaymentMethodWire(setup.paymentMethod, customerId),
      }
    : {
        status: setup.status,
        client_secret: setup.clientSecret,
        // Tollgate's extra (the SDK drops it): where the challenge is when Stripe.js cannot run
        // it, the Stripe simulator's test page in test mode.
        ...(setup.nextActionUrl && { next_action_url: setup.nextActionUrl }),
      };

/**
 * What a buyer may see of a benefit's settings (Polar's `Benefit*SubscriberProperties`): never
 * the seller's Discord guild token or a GitHub permission.
 */
function subscriberProperties(benefit: Benefit) {
  const properties = benefitWire(benefit).properties as Record<string, unknown>;
  switch (benefit.type) {
    case 'discord':
      return { guild_id: properties.guild_id as string };
    case 'github_repository':
      return {
        repository_owner: properties.repository_owner as string,
        repository_name: properties.repository_name as string,
      };
    case 'downloadables': {
      const archived = properties.archived as Record<string, boolean>;
      return { active_files: (properties.files as string[]).filter((id) => !archived[id]) };
    }
    default:
      // Custom, license keys and meter credit: what the seller sees, which holds no secret.
      return properties as z.input<
        | typeof benefitCustomPropertiesWireSchema
        | typeof benefitLicenseKeysPropertiesWireSchema
        | typeof benefitMeterCreditPropertiesWireSchema
      >;
  }
}

/** Polar's `Benefit*SubscriberProperties`, as `subscriberProperties` answers them. */
const benefitSubscriberPropertiesWireSchema = z.union([
  z.object({ guild_id: z.string() }).meta({ id: 'BenefitDiscordSubscriberProperties' }),
  z
    .object({ repository_owner: z.string(), repository_name: z.string() })
    .meta({ id: 'BenefitGitHubRepositorySubscriberProperties' }),
  z
    .object({ active_files: z.array(z.uuid()) })
    .meta({ id: 'BenefitDownloadablesSubscriberProperties' }),
  // Custom, license keys and meter credit: their `Benefit*Properties` as the seller sees them.
  benefitCustomPropertiesWireSchema,
  benefitLicenseKeysPropertiesWireSchema,
  benefitMeterCreditPropertiesWireSchema,
]);

/** Polar's `CustomerBenefitGrant*`: the grant with the portal customer and the subscriber's benefit. */
export const customerBenefitGrantWireSchema = benefitGrantWireSchema
  .omit({ error: true, customer: true, benefit: true })
  .extend({
    customer: customerPortalCustomerWireSchema,
    benefit: benefitPublicWireSchema
      .extend({
        metadata: metadataWireSchema,
        organization: organizationWireSchema,
        properties: benefitSubscriberPropertiesWireSchema,
      })
      .meta({ id: 'BenefitSubscriber' }),
  })
  .meta({ id: 'CustomerBenefitGrant' });

/**
 * A grant as the customer's portal answers it (Polar's `CustomerBenefitGrant*`), with its
 * benefit and the benefit's organization loaded.
 */
export function customerBenefitGrantWire(
  grant: BenefitGrant,
  customer: CustomerPortalCustomerWire,
): z.input<typeof customerBenefitGrantWireSchema> {
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

/** Polar's `CustomerOrder`. */
export const customerOrderWireSchema = orderWireSchema
  .omit({ metadata: true, custom_field_data: true, customer: true, discount: true })
  .extend({
    product: customerProductWireSchema
      .extend({ organization: organizationWireSchema })
      .meta({ id: 'CustomerOrderProduct' }),
    subscription: subscriptionCoreWireSchema
      .omit({ metadata: true })
      .meta({ id: 'CustomerOrderSubscription' })
      .nullable(),
  })
  .meta({ id: 'CustomerOrder' });

/**
 * An order as its customer sees it (Polar's `CustomerOrder`): the seller's order without its
 * metadata, custom field data, customer and discount; the product with its prices, public
 * benefits, medias and organization.
 */
export function customerOrderWire(
  order: OrderWire,
  product: ProductWire,
  organization: OrganizationWire,
): z.input<typeof customerOrderWireSchema> {
  const {
    custom_field_data: _customFieldData,
    customer: _customer,
    discount: _discount,
    ...visible
  } = withoutMetadata(order);
  return {
    ...visible,
    subscription: visible.subscription && withoutMetadata(visible.subscription),
    product: { ...customerProductWire(product), organization },
  };
}
