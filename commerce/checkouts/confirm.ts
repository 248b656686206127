import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RequestValidationError, type ValidationIssue } from '../../core/errors.ts';
import { Checkout, type Customer, Organization } from '../../db/entities/index.ts';
import { missingAddressFields } from '../../domain/checkout-amounts.ts';
import { checkCustomFieldData } from '../../domain/custom-field-values.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { commerceError, invalidFields, resourceNotFound } from '../errors.ts';
import type { ProductWire } from '../products/service.ts';
import { reserveCustomerBalance } from './balance.ts';
import { assertMaySubscribe, assignCustomer } from './buyer.ts';
import { attachedFieldRules, issue } from './changes.ts';
import { redeemDiscount } from './discounts.ts';
import { opensIncompleteSubscription } from './outcomes.ts';
import { applyChanges, chosenAmountOf, withStripeTaxOutsideLock } from './pricing.ts';
import { findCheckoutByClientSecret } from './reads.ts';
import {
  type CheckoutConfirmation,
  type CheckoutConfirmInput,
  checkoutConfirmInput,
} from './schemas.ts';
import { assertConfirmable } from './status.ts';
import { offerBeforeLock, offeredProducts, recordChange, termsOf } from './views.ts';

/** What the workflow goes on with after a confirm. */
export interface ConfirmedCheckout {
  checkoutId: string;
  organizationId: string;
  customerId: string;
  productId: string;
  productPriceId: string;
  discountId: string | null;
  amount: number;
  discountAmount: number;
  netAmount: number;
  totalAmount: number;
  currency: string;
  /** Something to pay now: charge `totalAmount` less what the customer's balance pays. */
  isPaymentRequired: boolean;
  /** A recurring product that is not free: keep the payment method for renewals. */
  isPaymentSetupRequired: boolean;
  isRecurring: boolean;
  /**
   * A first payment not made at once leaves an `incomplete` subscription (see
   * openIncompleteSubscription); absent from histories recorded before such subscriptions.
   */
  opensIncompleteSubscription?: boolean;
  confirmationTokenId: string | null;
}

/**
 * The checkout a buyer asks to confirm, by its secret, refused before the request reaches its
 * workflow (which may have ended) when it can no longer be: unknown 404, expired 410, otherwise
 * not confirmable 403. The confirm itself decides again under the row lock (see confirmCheckout).
 */
export async function confirmableCheckout(
  em: EntityManager,
  clientSecret: string,
): Promise<Checkout> {
  const checkout = await findCheckoutByClientSecret(em, clientSecret);
  assertConfirmable(checkout);
  return checkout;
}

/**
 * Refuses (403 PaymentNotReady, as Polar) to take a payment for an organization that cannot
 * accept payments yet: one that has not submitted its details (status `created`), where the
 * deployment requires them (TOLLGATE_REQUIRE_SELLER_DETAILS). A checkout with nothing to pay
 * is never refused. Checked before the confirm reaches the checkout's workflow,
 * on the checkout's amounts as they stand.
 */
export async function assertPaymentReady(
  em: EntityManager,
  checkout: Checkout,
  publicUrl: string,
): Promise<void> {
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  if (organization.detailsSubmittedAt) return;
  const offer = await offeredProducts(em, checkout.productIds, publicUrl);
  const product = offer.get(checkout.product.id) as ProductWire;
  if (termsOf(checkout, product, new Date()).flags.isPaymentRequired) {
    throw commerceError('PaymentNotReady');
  }
}

/** What the workflow needs of a confirmed checkout. */
function confirmedResult(
  checkout: Checkout,
  product: ProductWire,
  input: CheckoutConfirmInput,
): ConfirmedCheckout {
  const { flags } = termsOf(checkout, product, new Date());
  return {
    checkoutId: checkout.id,
    organizationId: checkout.organization.id,
    customerId: (checkout.customer as Customer).id,
    productId: checkout.product.id,
    productPriceId: checkout.productPrice.id,
    discountId: checkout.discount?.id ?? null,
    amount: checkout.amount,
    discountAmount: checkout.discountAmount,
    netAmount: checkout.netAmount,
    totalAmount: checkout.totalAmount,
    currency: checkout.currency,
    isPaymentRequired: flags.isPaymentRequired,
    isPaymentSetupRequired: flags.isPaymentSetupRequired,
    isRecurring: product.is_recurring,
    opensIncompleteSubscription: product.is_recurring && opensIncompleteSubscription(checkout),
    confirmationTokenId: input.confirmation_token_id ?? null,
  };
}

/** What confirm refuses to go on without, each at its field. */
function confirmIssues(
  checkout: Checkout,
  product: ProductWire,
  input: CheckoutConfirmInput,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const missing = (field: string, msg = 'Field required') =>
    issues.push(issue(['body', field], msg, 'missing'));
  if (!checkout.customerEmail) missing('customer_email');
  const { flags, fields } = termsOf(checkout, product, new Date());
  if (flags.isPaymentFormRequired) {
    if (!checkout.customerName) missing('customer_name');
    const address = checkout.customerBillingAddress;
    if (!address) missing('customer_billing_address');
    else {
      for (const field of missingAddressFields(fields, address)) {
        issues.push(
          issue(['body', 'customer_billing_address', field], 'Field required', 'missing'),
        );
      }
    }
    if (!input.confirmation_token_id) {
      missing('confirmation_token_id', 'Confirmation token is required.');
    }
  }
  const checked = checkCustomFieldData(attachedFieldRules(product), checkout.customFieldData);
  for (const refused of checked.issues) {
    issues.push(issue(['body', 'custom_field_data', refused.slug], refused.message, 'missing'));
  }
  return issues;
}

/** The confirm body, parsed as the route parsed it (it crossed the workflow as plain JSON). */
function parseConfirmation(confirmation: CheckoutConfirmation): CheckoutConfirmInput {
  const parsed = checkoutConfirmInput.safeParse(confirmation);
  if (!parsed.success) throw RequestValidationError.fromZod('body', parsed.error.issues);
  return parsed.data;
}

/**
 * THE confirm of a checkout, one transaction: the row locked; only an open checkout, or one
 * whose payment failed (the buyer retries), may be confirmed; the buyer's last changes
 * (`confirmation`, the confirm request's body) applied and everything confirm needs checked
 * (422s at their fields, nothing written); what the customer's balance pays held (see
 * reserveCustomerBalance); the customer matched or created; the discount redeemed once; the
 * checkout `confirmed` with `checkout.updated`. Stripe Tax is asked outside the transaction
 * (withStripeTaxOutsideLock). `confirmId` names this confirm: running it again after it
 * succeeded answers the same result and changes nothing, while another confirm of a confirmed
 * checkout is refused.
 */
export async function confirmCheckout(
  em: EntityManager,
  checkoutId: string,
  confirmation: CheckoutConfirmation,
  confirmId: string,
  publicUrl: string,
  stripe?: StripeClient,
): Promise<ConfirmedCheckout> {
  const input = parseConfirmation(confirmation);
  const db = em.fork();
  const offered = await offerBeforeLock(db, checkoutId, publicUrl);
  return withStripeTaxOutsideLock(stripe, (stripeTax) =>
    db.transactional(async (tx) => {
      const checkout = await tx.findOne(
        Checkout,
        { id: checkoutId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!checkout) throw resourceNotFound('Checkout not found');
      const offer = await offered.forLocked(tx, checkout);
      if (checkout.confirmationId === confirmId && checkout.customer) {
        return confirmedResult(checkout, offer.get(checkout.product.id) as ProductWire, input);
      }
      // Decided here, under the lock: of two confirms at once, the second finds the first's.
      assertConfirmable(checkout);

      const { confirmation_token_id: _, ...changes } = input;
      await applyChanges(tx, checkout, changes, offer, {
        chosenAmount: await chosenAmountOf(tx, checkout),
        confirming: true,
        stripeTax,
      });
      const product = offer.get(checkout.product.id) as ProductWire;
      // Before the checks: a balance that pays the whole total needs no card.
      const { trial } = termsOf(checkout, product, new Date());
      checkout.fromBalanceAmount = await reserveCustomerBalance(tx, checkout, trial !== null);
      const issues = confirmIssues(checkout, product, input);
      if (issues.length) throw invalidFields(issues);

      await assignCustomer(tx, checkout);
      await assertMaySubscribe(tx, checkout, product);
      await redeemDiscount(tx, checkout, input.discount_code ? 'discount_code' : 'discount_id');
      checkout.status = 'confirmed';
      checkout.confirmedAt = new Date();
      checkout.confirmationId = confirmId;
      checkout.paymentError = null;
      await recordChange(tx, checkout, 'checkout.updated', publicUrl, offer);
      return confirmedResult(checkout, product, input);
    }),
  );
}
