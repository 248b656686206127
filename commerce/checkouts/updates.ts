import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Checkout } from '../../db/entities/index.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { resourceNotFound } from '../errors.ts';
import type { CheckoutChanges } from './changes.ts';
import {
  applyChanges,
  chosenAmountOf,
  type StripeTaxSource,
  withStripeTaxOutsideLock,
} from './pricing.ts';
import { getCheckoutByClientSecret } from './reads.ts';
import type {
  CheckoutPublicWire,
  CheckoutUpdateInput,
  CheckoutUpdatePublicInput,
  CheckoutWire,
} from './schemas.ts';
import { assertOpen } from './status.ts';
import { offeredProducts, publicWireOf, recordChange } from './views.ts';

/**
 * Applies an update to a checkout locked by the caller's transaction; records `checkout.updated`.
 * `stripeTax`: for an organization that taxes with Stripe Tax.
 */
async function updateLocked(
  tx: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  publicUrl: string,
  stripeTax: StripeTaxSource | undefined,
): Promise<CheckoutWire> {
  const offer = await offeredProducts(tx, checkout.productIds, publicUrl);
  await applyChanges(tx, checkout, changes, offer, {
    chosenAmount: await chosenAmountOf(tx, checkout),
    stripeTax,
  });
  return recordChange(tx, checkout, 'checkout.updated', publicUrl, offer);
}

/** The seller's update of an open checkout; records `checkout.updated`. */
export function updateCheckout(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: CheckoutUpdateInput,
  publicUrl: string,
  stripe?: StripeClient,
): Promise<CheckoutWire> {
  return withStripeTaxOutsideLock(stripe, (stripeTax) =>
    em.transactional(async (tx) => {
      const checkout = await tx.findOne(
        Checkout,
        { id, organization: organizationId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!checkout) throw resourceNotFound('Checkout not found');
      assertOpen(checkout);
      return updateLocked(tx, checkout, input, publicUrl, stripeTax);
    }),
  );
}

/** The buyer's update of an open checkout, by its client secret; records `checkout.updated`. */
export function updateCheckoutPublic(
  em: EntityManager,
  clientSecret: string,
  input: CheckoutUpdatePublicInput,
  publicUrl: string,
  stripe?: StripeClient,
): Promise<CheckoutPublicWire> {
  return withStripeTaxOutsideLock(stripe, (stripeTax) =>
    em.transactional(async (tx) => {
      const checkout = await getCheckoutByClientSecret(
        tx,
        clientSecret,
        LockMode.PESSIMISTIC_WRITE,
      );
      assertOpen(checkout);
      const wire = await updateLocked(tx, checkout, input, publicUrl, stripeTax);
      return publicWireOf(tx, checkout, wire);
    }),
  );
}
