import Router from '@koa/router';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseParams } from '../../api/validation.ts';
import type { Customer } from '../../db/entities/index.ts';
import { benefitTypes } from '../../domain/benefit-types.ts';
import { balanceOf } from '../customers/balance.ts';
import { defaultBalanceCurrency } from '../customers/schemas.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import {
  idsParameter,
  listParameters,
  pageParameters,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import { retryFailedRenewalsWith } from '../http/subscription-changes.ts';
import {
  customerBenefitGrantSortFields,
  customerBenefitGrantWire,
  customerPaymentMethodWire,
  customerPortalCustomerWire,
  type PaymentMethodSetup,
  paymentMethodConfirmInput,
  paymentMethodCreateInput,
  paymentMethodParams,
  paymentMethodSetupWire,
  portalCustomerUpdateInput,
} from './schemas.ts';
import {
  addPortalPaymentMethod,
  confirmPortalPaymentMethod,
  customerOAuthAccounts,
  deletePortalPaymentMethod,
  getCustomerBenefitGrant,
  listCustomerBenefitGrants,
  listPortalPaymentMethods,
  updatePortalCustomer,
} from './service.ts';

const benefitTypeQuery = z.enum(benefitTypes);

/** The query of the portal's payment method list. */
export const paymentMethodListParameters = listParameters({ page: pageParameters });

/** The query of the portal's benefit grant list. */
export const customerBenefitGrantListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerBenefitGrantSortFields, '-granted_at'),
  types: valuesParameter('type', benefitTypeQuery),
  benefitIds: idsParameter('benefit_id'),
  organizationIds: idsParameter('organization_id'),
  checkoutIds: idsParameter('checkout_id'),
  orderIds: idsParameter('order_id'),
  subscriptionIds: idsParameter('subscription_id'),
});

/**
 * /v1/customer-portal: what a customer sees of itself with a `polar_cst_` session — profile,
 * saved cards and benefit grants. Every read and change is scoped to the
 * session's customer: another customer's ids are not found.
 */
export function customerPortalRoutes(dependencies: AppDependencies): Router {
  const { orm, stripe, temporal } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal' });
  const { session, limit, list } = portalGate(dependencies);

  /** A card saved (at once or after its 3-D Secure step) pays the customer's failed renewals. */
  async function payFailedRenewals(customer: Customer, setup: PaymentMethodSetup) {
    if (setup.status !== 'succeeded') return;
    await retryFailedRenewalsWith(orm.em.fork(), temporal, customer.id, setup.paymentMethod.id);
  }

  /** The session customer's portal profile, every grant embeds it. */
  async function portalCustomer(customer: Customer) {
    return customerPortalCustomerWire(customer, await customerOAuthAccounts(orm.em, customer));
  }

  /** The profile as /customers/me answers it: with the customer's balance (Tollgate's). */
  async function portalProfile(customer: Customer) {
    const balance = await balanceOf(orm.em, customer.id, defaultBalanceCurrency);
    return {
      ...(await portalCustomer(customer)),
      balance: { balance, currency: defaultBalanceCurrency },
    };
  }

  router.get('/customers/me', limit('portalRead'), session, async (ctx) => {
    ctx.body = await portalProfile(sessionCustomerOf(ctx));
  });

  router.patch('/customers/me', limit('portalWrite'), session, async (ctx) => {
    const input = parseBody(ctx, portalCustomerUpdateInput);
    const customer = await updatePortalCustomer(orm.em, sessionCustomerOf(ctx), input);
    ctx.body = await portalProfile(customer);
  });

  router.get(
    '/customers/me/payment-methods',
    ...list({
      query: paymentMethodListParameters,
      list: (customer, query) => listPortalPaymentMethods(stripe, customer, query.page),
      serialize: (methods, customer) =>
        methods.map((method) => customerPaymentMethodWire(method, customer.id)),
    }),
  );

  router.post('/customers/me/payment-methods', limit('portalWrite'), session, async (ctx) => {
    const input = parseBody(ctx, paymentMethodCreateInput);
    const customer = sessionCustomerOf(ctx);
    const setup = await addPortalPaymentMethod({ orm, em: orm.em, stripe }, customer, input);
    await payFailedRenewals(customer, setup);
    ctx.status = 201;
    ctx.body = paymentMethodSetupWire(setup, customer.id);
  });

  router.post(
    '/customers/me/payment-methods/confirm',
    limit('portalWrite'),
    session,
    async (ctx) => {
      const input = parseBody(ctx, paymentMethodConfirmInput);
      const customer = sessionCustomerOf(ctx);
      const setup = await confirmPortalPaymentMethod({ em: orm.em, stripe }, customer, input);
      await payFailedRenewals(customer, setup);
      ctx.status = 201;
      ctx.body = paymentMethodSetupWire(setup, customer.id);
    },
  );

  router.delete('/customers/me/payment-methods/:id', limit('portalWrite'), session, async (ctx) => {
    const { id } = parseParams(ctx.params as Record<string, string>, paymentMethodParams);
    await deletePortalPaymentMethod({ em: orm.em, stripe }, sessionCustomerOf(ctx), id);
    ctx.status = 204;
  });

  router.get(
    '/benefit-grants/',
    ...list({
      query: customerBenefitGrantListParameters,
      list: (customer, query) => listCustomerBenefitGrants(orm.em, customer, query),
      serialize: async (grants, customer) => {
        const profile = await portalCustomer(customer);
        return grants.map((grant) => customerBenefitGrantWire(grant, profile));
      },
    }),
  );

  router.get('/benefit-grants/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const customer = sessionCustomerOf(ctx);
    const grant = await getCustomerBenefitGrant(orm.em, customer, id);
    ctx.body = customerBenefitGrantWire(grant, await portalCustomer(customer));
  });

  return router;
}
