import type { EntityManager } from '@mikro-orm/postgresql';
import { organizationMessages } from '../../accounts/organization/errors.ts';
import type { OrganizationLimits } from '../../accounts/organization/limits.ts';
import { createOrganization } from '../../accounts/organization/organizations.ts';
import { AppError } from '../../core/errors.ts';
import { Organization, Product, type User } from '../../db/entities/index.ts';
import {
  customerEmailSettingsOf,
  invoiceSettingsOf,
  notificationSettingsOf,
  subscriptionSettingsOf,
} from '../../db/entities/organization.ts';
import { taxSettingsOf } from '../../domain/tax.ts';
import { invalidFields, notPermitted, resourceNotFound } from '../errors.ts';
import { appendEvent } from '../outbox.ts';
import {
  type OrganizationCreateInput,
  type OrganizationUpdateInput,
  organizationWire,
} from './schemas.ts';

export async function getOrganization(em: EntityManager, id: string): Promise<Organization> {
  const organization = await em.findOne(Organization, { id });
  if (!organization) throw resourceNotFound('Organization not found');
  return organization;
}

/**
 * The organization's public storefront, named by its slug: the organization and the products it
 * offers (not archived), oldest first. An unknown slug is not found.
 */
/** The id of the organization a storefront address names, or null. */
export async function findOrganizationIdBySlug(
  em: EntityManager,
  slug: string,
): Promise<string | null> {
  const organization = await em.findOne(Organization, { slug }, { fields: ['id'] });
  return organization?.id ?? null;
}

export async function getStorefront(
  em: EntityManager,
  organizationId: string,
): Promise<{ organization: Organization; products: Product[] }> {
  const organization = await em.findOne(Organization, { id: organizationId });
  if (!organization) throw resourceNotFound('Organization not found');
  const products = await em.find(
    Product,
    { organization, isArchived: false },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
  return { organization, products };
}

/**
 * A signed-in person creates a seller organization (Polar's `organizations.create`), as Better
 * Auth's organization create does (accounts/organization/organizations.ts): they become its
 * owner, a taken slug and the organization limit are refused, with its messages. The settings
 * of the request then apply as an update's would.
 */
export async function createSellerOrganization(
  em: EntityManager,
  limits: OrganizationLimits,
  creator: User,
  input: OrganizationCreateInput,
): Promise<Organization> {
  try {
    return await em.transactional(async (tx) => {
      const { name, slug } = input;
      const { organization } = await createOrganization(tx, limits, creator, { name, slug });
      applyOrganizationInput(organization, input);
      return organization;
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.message === organizationMessages.ORGANIZATION_ALREADY_EXISTS) {
      throw invalidFields([{ loc: ['body', 'slug'], msg: error.message, type: 'value_error' }]);
    }
    if (
      error.message === organizationMessages.YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS
    ) {
      throw notPermitted(error.message);
    }
    throw error;
  }
}

/**
 * Applies a seller's update; fields absent from the request keep their value. Submitting
 * `details` the first time stamps `details_submitted_at`. Emits `organization.updated`.
 */
export function updateOrganization(
  em: EntityManager,
  id: string,
  input: OrganizationUpdateInput,
): Promise<Organization> {
  return em.transactional(async (tx) => {
    const organization = await getOrganization(tx, id);
    applyOrganizationInput(organization, input);
    // The event carries the state after the change, so stamp the modification time now.
    organization.updatedAt = new Date();
    appendEvent(tx, organization.id, 'organization.updated', organizationWire(organization));
    return organization;
  });
}

/** Sets the fields the request has, in Polar's update semantics. */
function applyOrganizationInput(organization: Organization, input: OrganizationUpdateInput) {
  if (input.name) organization.name = input.name;
  if (input.avatar_url !== undefined) organization.logo = input.avatar_url;
  if (input.email !== undefined) organization.email = input.email;
  if (input.website !== undefined) organization.website = input.website;
  if (input.socials !== undefined) organization.socials = input.socials ?? [];
  if (input.details) {
    organization.details = input.details;
    organization.detailsSubmittedAt ??= new Date();
  }
  if (input.feature_settings) {
    const { issue_funding_enabled, seat_based_pricing_enabled } = input.feature_settings;
    organization.featureSettings = {
      issueFundingEnabled:
        issue_funding_enabled ?? organization.featureSettings.issueFundingEnabled,
      seatBasedPricingEnabled:
        seat_based_pricing_enabled ?? organization.featureSettings.seatBasedPricingEnabled,
    };
  }
  if (input.subscription_settings) {
    const settings = input.subscription_settings;
    const current = subscriptionSettingsOf(organization);
    organization.subscriptionSettings = {
      allowMultipleSubscriptions: settings.allow_multiple_subscriptions,
      allowCustomerUpdates: settings.allow_customer_updates,
      prorationBehavior: settings.proration_behavior,
      dunningRetryDays: settings.dunning_retry_days ?? current.dunningRetryDays,
      dunningFinalStatus: settings.dunning_final_status ?? current.dunningFinalStatus,
    };
  }
  if (input.notification_settings) {
    organization.notificationSettings = {
      newOrder: input.notification_settings.new_order,
      newSubscription: input.notification_settings.new_subscription,
      dunning: input.notification_settings.dunning ?? notificationSettingsOf(organization).dunning,
    };
  }
  if (input.invoice_settings) {
    const asked = input.invoice_settings;
    const current = invoiceSettingsOf(organization);
    const keep = <T>(value: T | undefined, now: T) => (value === undefined ? now : value);
    organization.invoiceSettings = {
      legalName: keep(asked.legal_name, current.legalName),
      address: keep(asked.address, current.address),
      taxId: keep(asked.tax_id, current.taxId),
      logoUrl: keep(asked.logo_url, current.logoUrl),
      brandColor: keep(asked.brand_color, current.brandColor),
      footer: keep(asked.footer, current.footer),
    };
  }
  if (input.customer_email_settings) {
    const asked = input.customer_email_settings;
    const current = customerEmailSettingsOf(organization);
    organization.customerEmailSettings = {
      orderConfirmation: asked.order_confirmation ?? current.orderConfirmation,
      subscriptionConfirmation: asked.subscription_confirmation ?? current.subscriptionConfirmation,
      subscriptionCancellation: asked.subscription_cancellation ?? current.subscriptionCancellation,
      trialEnding: asked.trial_ending ?? current.trialEnding,
      renewalReminder: asked.renewal_reminder ?? current.renewalReminder,
      paymentRecovered: asked.payment_recovered ?? current.paymentRecovered,
      cardExpiring: asked.card_expiring ?? current.cardExpiring,
    };
  }
  if (input.tax_settings) {
    const asked = input.tax_settings;
    const current = taxSettingsOf(organization);
    organization.taxSettings = {
      mode: asked.mode ?? current.mode,
      homeCountry: asked.home_country === undefined ? current.homeCountry : asked.home_country,
      pricesIncludeTax: asked.prices_include_tax ?? current.pricesIncludeTax,
    };
  }
}
