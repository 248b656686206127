import Router from '@koa/router';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseParams, parseQuery } from '../../api/validation.ts';
import { benefitTypes } from '../../db/entities/benefit.ts';
import { type Customer, type Order, Organization } from '../../db/entities/index.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import { readPage, readQueryIds, readQueryList, readSorting } from '../http/listing.ts';
import { portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import type { OrderWire } from '../orders/schemas.ts';
import { productBillingTypeFilter } from '../orders/schemas.ts';
import { serializeOrders } from '../orders/service.ts';
import { type OrganizationWire, organizationWire } from '../organizations/schemas.ts';
import { type ProductWire, serializeProducts } from '../products/service.ts';
import {
  customerBenefitGrantSortFields,
  customerBenefitGrantWire,
  customerOrderSortFields,
  customerOrderWire,
  customerPaymentMethodWire,
  customerPortalCustomerWire,
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
  getCustomerOrder,
  listCustomerBenefitGrants,
  listCustomerOrders,
  listPortalPaymentMethods,
  updatePortalCustomer,
} from './service.ts';

const benefitTypeQuery = z.enum(benefitTypes);
const orderListQuery = z.object({ query: z.string().trim().min(1).optional() }).loose();

/**
 * /v1/customer-portal: what a customer sees of itself with a `polar_cst_` session — profile,
 * saved cards, orders, benefit grants, license keys. Every read and change is scoped to the
 * session's customer: another customer's ids are not found.
 */
export function customerPortalRoutes(dependencies: AppDependencies): Router {
  const { orm, config, stripe } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal' });
  const { session, limit, list } = portalGate(dependencies);

  /** The session customer's portal profile, every grant embeds it. */
  async function portalCustomer(customer: Customer) {
    return customerPortalCustomerWire(customer, await customerOAuthAccounts(orm.em, customer));
  }

  router.get('/customers/me', limit('portalRead'), session, async (ctx) => {
    ctx.body = await portalCustomer(sessionCustomerOf(ctx));
  });

  router.patch('/customers/me', limit('portalWrite'), session, async (ctx) => {
    const input = parseBody(ctx, portalCustomerUpdateInput);
    const customer = await updatePortalCustomer(orm.em, sessionCustomerOf(ctx), input);
    ctx.body = await portalCustomer(customer);
  });

  router.get(
    '/customers/me/payment-methods',
    ...list({
      read: (ctx) => ({ page: readPage(ctx) }),
      list: (customer, query) => listPortalPaymentMethods(stripe, customer, query.page),
      serialize: (methods, customer) =>
        methods.map((method) => customerPaymentMethodWire(method, customer.id)),
    }),
  );

  router.post('/customers/me/payment-methods', limit('portalWrite'), session, async (ctx) => {
    const input = parseBody(ctx, paymentMethodCreateInput);
    const customer = sessionCustomerOf(ctx);
    const setup = await addPortalPaymentMethod({ orm, em: orm.em, stripe }, customer, input);
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
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, customerBenefitGrantSortFields, '-granted_at'),
        types: readQueryList(ctx, 'type', benefitTypeQuery),
        benefitIds: readQueryIds(ctx, 'benefit_id'),
        organizationIds: readQueryIds(ctx, 'organization_id'),
        checkoutIds: readQueryIds(ctx, 'checkout_id'),
        orderIds: readQueryIds(ctx, 'order_id'),
        subscriptionIds: readQueryIds(ctx, 'subscription_id'),
      }),
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

  /** Orders as their customer sees them: each product and organization serialized once. */
  async function customerOrders(orders: Order[]) {
    const wires = await serializeOrders(orm.em, orders);
    const products = [
      ...new Map(orders.map((order) => [order.product.id, order.product])).values(),
    ];
    const productWires = await serializeProducts(orm.em, products, config.api.publicUrl);
    const organizations = await orm.em.find(Organization, {
      id: { $in: [...new Set(orders.map((order) => order.organization.id))] },
    });
    const productOf = new Map(productWires.map((product) => [product.id, product]));
    const organizationOf = new Map(organizations.map((org) => [org.id, organizationWire(org)]));
    return orders.map((order, index) =>
      customerOrderWire(
        wires[index] as OrderWire,
        productOf.get(order.product.id) as ProductWire,
        organizationOf.get(order.organization.id) as OrganizationWire,
      ),
    );
  }

  router.get(
    '/orders/',
    ...list({
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, customerOrderSortFields, '-created_at'),
        query: parseQuery(ctx, orderListQuery).query,
        organizationIds: readQueryIds(ctx, 'organization_id'),
        productIds: readQueryIds(ctx, 'product_id'),
        productBillingTypes: readQueryList(ctx, 'product_billing_type', productBillingTypeFilter),
        subscriptionIds: readQueryIds(ctx, 'subscription_id'),
      }),
      list: (customer, query) => listCustomerOrders(orm.em, customer, query),
      serialize: customerOrders,
    }),
  );

  router.get('/orders/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const order = await getCustomerOrder(orm.em, sessionCustomerOf(ctx), id);
    const [wire] = await customerOrders([order]);
    ctx.body = wire;
  });

  return router;
}
