import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { customerBenefitGrantListParameters, paymentMethodListParameters } from './routes.ts';
import {
  customerBenefitGrantWireSchema,
  customerPaymentMethodWireSchema,
  customerPortalCustomerWireSchema,
  paymentMethodConfirmInput,
  paymentMethodCreateInput,
  paymentMethodParams,
  paymentMethodSetupWireSchema,
  portalCustomerUpdateInput,
} from './schemas.ts';

const portal = { tag: 'Customer Portal', auth: 'customer' } as const;

/** The operations of customerPortalRoutes (/v1/customer-portal): profile, cards and grants. */
export const customerPortalOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customer-portal/customers/me',
    operationId: 'customer_portal:customers:get',
    summary: 'Get the session’s customer',
    ...portal,
    response: { status: 200, schema: customerPortalCustomerWireSchema },
  },
  {
    method: 'patch',
    path: '/v1/customer-portal/customers/me',
    operationId: 'customer_portal:customers:update',
    summary: 'Update the customer’s billing name, address and tax id',
    ...portal,
    body: portalCustomerUpdateInput,
    response: { status: 200, schema: customerPortalCustomerWireSchema },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/customers/me/payment-methods',
    operationId: 'customer_portal:customers:list_payment_methods',
    summary: 'List the customer’s saved payment methods',
    ...portal,
    query: paymentMethodListParameters.schema,
    response: { status: 200, schema: pageOf(customerPaymentMethodWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/customer-portal/customers/me/payment-methods',
    operationId: 'customer_portal:customers:add_payment_method',
    summary: 'Save a card (it may first need its 3-D Secure step)',
    ...portal,
    body: paymentMethodCreateInput,
    response: { status: 201, schema: paymentMethodSetupWireSchema },
  },
  {
    method: 'post',
    path: '/v1/customer-portal/customers/me/payment-methods/confirm',
    operationId: 'customer_portal:customers:confirm_payment_method',
    summary: 'Save the card whose 3-D Secure step finished',
    ...portal,
    body: paymentMethodConfirmInput,
    response: { status: 201, schema: paymentMethodSetupWireSchema },
    // 400 CustomerNotReady before any card was added; 404 for a setup intent not the customer's.
    errors: [400, 404],
  },
  {
    method: 'delete',
    path: '/v1/customer-portal/customers/me/payment-methods/:id',
    operationId: 'customer_portal:customers:delete_payment_method',
    summary: 'Delete a saved payment method',
    ...portal,
    params: paymentMethodParams,
    response: { status: 204 },
    // 400 PaymentMethodInUseByActiveSubscription for the card an active subscription pays with.
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/v1/customer-portal/benefit-grants',
    operationId: 'customer_portal:benefit-grants:list',
    summary: 'List the customer’s benefit grants',
    ...portal,
    query: customerBenefitGrantListParameters.schema,
    response: { status: 200, schema: pageOf(customerBenefitGrantWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/benefit-grants/:id',
    operationId: 'customer_portal:benefit-grants:get',
    summary: 'Get one of the customer’s benefit grants',
    ...portal,
    params: idPath,
    response: { status: 200, schema: customerBenefitGrantWireSchema },
    errors: [404],
  },
];
