import { type FilterQuery, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import {
  type Benefit,
  BenefitGrant,
  Customer,
  CustomerOAuthAccount,
  Order,
  Organization,
  Subscription,
} from '../../db/entities/index.ts';
import type { SubscriptionStatus } from '../../db/entities/subscription.ts';
import { findPage, inList, type ListQuery, oldestFirst, type Page } from '../../db/listing.ts';
import type { Orm } from '../../db/orm.ts';
import type { BenefitType } from '../../domain/benefit-types.ts';
import { subscriptionSettingsOf } from '../../domain/organization-settings.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import {
  detachCard,
  findConfirmationToken,
  findCustomerPaymentMethod,
  findSetupIntent,
  listCards,
  setDefaultCard,
  setDefaultCardUnlessRefused,
  setUpCard,
} from '../../integrations/stripe/payment-methods.ts';
import { authenticationOf, stripeCustomerFor } from '../../integrations/stripe/payments.ts';
import { updateCustomer } from '../customers/service.ts';
import { commerceError, invalidFields, notPermitted, resourceNotFound } from '../errors.ts';
import type {
  CustomerBenefitGrantSortField,
  PaymentMethodConfirmInput,
  PaymentMethodCreateInput,
  PaymentMethodSetup,
  PortalCustomerUpdateInput,
} from './schemas.ts';

/** The accounts (Discord, GitHub) the customer linked, for its portal profile. */
export const customerOAuthAccounts = (em: EntityManager, customer: Customer) =>
  em.find(CustomerOAuthAccount, { customer }, { orderBy: { platform: 'asc' } });

export interface CustomerBenefitGrantFilter {
  types: BenefitType[];
  benefitIds: string[];
  organizationIds: string[];
  checkoutIds: string[];
  orderIds: string[];
  subscriptionIds: string[];
}

const grantSortColumns = {
  granted_at: (direction: 'asc' | 'desc') => ({ grantedAt: direction }),
  type: (direction: 'asc' | 'desc') => ({ benefit: { type: direction } }),
  organization: (direction: 'asc' | 'desc') => ({ benefit: { organization: { slug: direction } } }),
} as const;

/**
 * One page of the customer's own grants (benefit, its organization loaded). A session belongs
 * to one customer of one organization: nothing else can match.
 */
export async function listCustomerBenefitGrants(
  em: EntityManager,
  customer: Customer,
  query: ListQuery<CustomerBenefitGrantFilter, CustomerBenefitGrantSortField>,
): Promise<[BenefitGrant[], number]> {
  const benefit: FilterQuery<Benefit> = {
    ...(query.types.length > 0 && { type: { $in: query.types } }),
    ...(query.benefitIds.length > 0 && { id: { $in: query.benefitIds } }),
    ...(query.organizationIds.length > 0 && { organization: { $in: query.organizationIds } }),
  };
  const { checkoutIds } = query;
  const orderIds = checkoutIds.length ? await ordersOfCheckouts(em, customer, checkoutIds) : [];
  return findPage(em, BenefitGrant, {
    where: [
      { customer, benefit },
      checkoutIds.length > 0 && { orderId: { $in: orderIds } },
      inList('orderId', query.orderIds),
      inList('subscriptionId', query.subscriptionIds),
    ],
    sorting: query.sorting,
    sortKeys: grantSortColumns,
    thenBy: oldestFirst,
    page: query.page,
    populate: ['benefit.organization'],
  });
}

async function ordersOfCheckouts(em: EntityManager, customer: Customer, checkoutIds: string[]) {
  const orders = await em.find(
    Order,
    { customer, checkoutId: { $in: checkoutIds } },
    { fields: ['id'] },
  );
  return orders.map((order) => order.id);
}

/** One of the customer's own grants; another customer's is not found. */
export async function getCustomerBenefitGrant(em: EntityManager, customer: Customer, id: string) {
  const grant = await em.findOne(
    BenefitGrant,
    { id, customer },
    { populate: ['benefit.organization'] },
  );
  if (!grant) throw resourceNotFound('Benefit grant not found');
  return grant;
}

/**
 * The customer corrects its own billing details, when its organization lets customers change
 * things (`allow_customer_updates`): the seller's update rules apply (the tax id validated
 * against the billing country, the address never cleared once set) and the seller hears of it
 * (customer.updated). The billing name is the customer's name.
 */
export async function updatePortalCustomer(
  em: EntityManager,
  customer: Customer,
  input: PortalCustomerUpdateInput,
): Promise<Customer> {
  const organization = await em.findOneOrFail(Organization, customer.organization.id);
  if (!subscriptionSettingsOf(organization).allowCustomerUpdates) {
    throw notPermitted('The seller does not let customers change their details here.');
  }
  const { tax_id: taxId } = input;
  return updateCustomer(
    em,
    organization.id,
    { id: customer.id },
    {
      name: input.billing_name,
      billing_address: input.billing_address,
      tax_id: taxId === undefined || taxId === null ? taxId : [taxId, null],
    },
  );
}

/** The subscriptions a customer's saved card pays for: every one that renews or retries. */
const chargedStatuses: SubscriptionStatus[] = ['trialing', 'active', 'past_due', 'unpaid'];
/** A card these still charge cannot be deleted. */
const liveStatuses: SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

/** One page of the customer's saved cards (none before it ever saved one). */
export async function listPortalPaymentMethods(
  stripe: StripeClient,
  customer: Customer,
  page: Page,
): Promise<[Stripe.PaymentMethod[], number]> {
  if (!customer.stripeCustomerId) return [[], 0];
  const cards = await listCards(stripe, customer.stripeCustomerId);
  return [cards.slice(page.offset, page.offset + page.limit), cards.length];
}

/**
 * Makes `paymentMethodId` the customer's default card, at Stripe (invoice settings) and here,
 * and the card its subscriptions charge from their next renewal or retry on. The card must be
 * the customer's own (a SetupIntent of theirs saved it): callers check, this does not.
 */
export function setDefaultPaymentMethod(
  { em, stripe }: { em: EntityManager; stripe: StripeClient },
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    // Locked: a card being deleted at the same time is either default before or after, never both.
    const customer = await tx.findOneOrFail(
      Customer,
      { id: customerId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!customer.stripeCustomerId) throw commerceError('CustomerNotReady');
    await setDefaultCard(stripe, customer.stripeCustomerId, paymentMethodId);
    customer.defaultPaymentMethodId = paymentMethodId;
    await tx.nativeUpdate(
      Subscription,
      { customer: customerId, status: { $in: chargedStatuses } },
      { stripePaymentMethodId: paymentMethodId },
    );
  });
}

/**
 * Tells Stripe the customer's default card (invoice settings) when it is `paymentMethodId`: a
 * checkout made its card the default of a customer who had none (completeCheckout wrote the
 * row). Nothing when the customer has another default by now, or when Stripe refuses the card
 * (the checkout's completion is never held up by it: Tollgate charges renewals with the
 * subscription's card, not Stripe's default). Safe to run again.
 */
export async function sendDefaultCardToStripe(
  { em, stripe }: { em: EntityManager; stripe: StripeClient },
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  const customer = await em.findOneOrFail(Customer, customerId);
  if (customer.defaultPaymentMethodId !== paymentMethodId || !customer.stripeCustomerId) return;
  await setDefaultCardUnlessRefused(stripe, customer.stripeCustomerId, paymentMethodId);
}

/** A card Stripe would not save, refused at the field that named it with Stripe's reason. */
const cardRefused = (field: string, msg: string) =>
  invalidFields([{ loc: ['body', field], msg, type: 'payment_error' }]);

/**
 * What a SetupIntent of the customer came to. A declined card, or a failed 3-D Secure step, is
 * refused at the field that named it with the card's reason (the SDK's 422 for these calls).
 */
async function settledSetup(
  deps: { em: EntityManager; stripe: StripeClient },
  customer: Customer,
  intent: Stripe.SetupIntent,
  { setDefault, field }: { setDefault: boolean; field: string },
): Promise<PaymentMethodSetup> {
  const method = intent.payment_method;
  if (intent.status === 'succeeded' && method && typeof method !== 'string') {
    if (setDefault) await setDefaultPaymentMethod(deps, customer.id, method.id);
    return { status: 'succeeded', paymentMethod: method };
  }
  const authentication = authenticationOf(intent);
  if (authentication) {
    const { clientSecret, nextActionUrl } = authentication;
    return { status: 'requires_action', clientSecret, nextActionUrl };
  }
  throw cardRefused(
    field,
    intent.last_setup_error?.message ?? 'The card could not be saved; try another one.',
  );
}

/** How many failed 3-D Secure attempts of one card are followed to its newest. */
const maxCardAttempts = 20;

/**
 * Saves a new card for the customer (its Stripe customer made on first use): `succeeded` with
 * the card, or `requires_action` with the client secret Stripe.js runs the 3-D Secure step
 * with, and the challenge's address when Stripe names one (then confirmPortalPaymentMethod). The same token sent twice saves one card. An unknown
 * or expired confirmation token is refused before anything is made.
 */
export async function addPortalPaymentMethod(
  { orm, em, stripe }: { orm: Orm; em: EntityManager; stripe: StripeClient },
  customer: Customer,
  input: PaymentMethodCreateInput,
): Promise<PaymentMethodSetup> {
  const source = input.confirmation_token_id;
  if (source.startsWith('ctoken_')) {
    const token = await findConfirmationToken(stripe, source);
    const expired = token?.expires_at != null && token.expires_at * 1000 <= Date.now();
    if (!token || expired) {
      throw cardRefused(
        'confirmation_token_id',
        'The card details are unknown or expired; enter the card again.',
      );
    }
  }
  const stripeCustomerId = await stripeCustomerFor({ orm, stripe }, customer.id);
  const setUp = (idempotencyKey: string) =>
    setUpCard(stripe, {
      stripeCustomerId,
      paymentMethodOrToken: source,
      returnUrl: input.return_url,
      idempotencyKey,
      metadata: { customer_id: customer.id, organization_id: customer.organization.id },
    });
  let intent = await setUp(`portal-card:${customer.id}:${source}`);
  // The same card sent again (a test card's id) gets its first attempt's answer back: one still
  // waiting for 3-D Secure is answered as it is now, and after a failed step a new attempt is
  // made (keyed by the one that failed), so the customer can try the card again.
  for (let attempts = 0; attempts < maxCardAttempts; attempts += 1) {
    if ('refused' in intent || intent.status !== 'requires_action') break;
    const current = await findSetupIntent(stripe, intent.id);
    if (!current || current.status === 'requires_action') break;
    intent =
      current.status === 'requires_payment_method'
        ? await setUp(`portal-card:${customer.id}:${source}:after:${intent.id}`)
        : current;
  }
  if ('refused' in intent) throw cardRefused('confirmation_token_id', intent.refused);
  return settledSetup({ em, stripe }, customer, intent, {
    setDefault: input.set_default,
    field: 'confirmation_token_id',
  });
}

/**
 * After the 3-D Secure step of a card being added: the SetupIntent's outcome. Only the
 * customer's own SetupIntents are found.
 */
export async function confirmPortalPaymentMethod(
  deps: { em: EntityManager; stripe: StripeClient },
  customer: Customer,
  input: PaymentMethodConfirmInput,
): Promise<PaymentMethodSetup> {
  if (!customer.stripeCustomerId) throw commerceError('CustomerNotReady');
  const intent = await findSetupIntent(deps.stripe, input.setup_intent_id);
  if (!intent || intent.customer !== customer.stripeCustomerId) {
    throw resourceNotFound('Setup intent not found');
  }
  return settledSetup(deps, customer, intent, {
    setDefault: input.set_default,
    field: 'setup_intent_id',
  });
}

/**
 * Removes one of the customer's cards, unless a live subscription (trialing, active, past due)
 * charges it; the customer's default is cleared with it. Another customer's card is not found.
 */
export async function deletePortalPaymentMethod(
  { em, stripe }: { em: EntityManager; stripe: StripeClient },
  customer: Customer,
  paymentMethodId: string,
): Promise<void> {
  const stripeCustomerId = customer.stripeCustomerId;
  const method =
    stripeCustomerId &&
    (await findCustomerPaymentMethod(stripe, stripeCustomerId, paymentMethodId));
  if (!method) throw resourceNotFound('Payment method not found');
  await em.transactional(async (tx) => {
    // Locked as setDefaultPaymentMethod locks it: no subscription takes the card meanwhile.
    const locked = await tx.findOneOrFail(
      Customer,
      { id: customer.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const charging = await tx.count(Subscription, {
      customer: customer.id,
      status: { $in: liveStatuses },
      stripePaymentMethodId: paymentMethodId,
    });
    if (charging > 0) throw commerceError('PaymentMethodInUseByActiveSubscription');
    await detachCard(stripe, paymentMethodId);
    // Stripe forgets a detached card as the default too.
    if (locked.defaultPaymentMethodId === paymentMethodId) locked.defaultPaymentMethodId = null;
  });
}
