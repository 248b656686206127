import { AppError, RequestValidationError, type ValidationIssue } from '../core/errors.ts';

/**
 * The error classes of the commerce API. The name is the `error` literal Polar's SDK matches to
 * pick its typed error, so it must be spelled exactly; the detail is the default message.
 */
export const commerceErrors = {
  Unauthorized: { refusal: 'unauthenticated', detail: 'Unauthorized' },
  NotPermitted: { refusal: 'forbidden', detail: 'You are not permitted to do this.' },
  ResourceNotFound: { refusal: 'not_found', detail: 'Not found' },
  BadRequest: { refusal: 'invalid', detail: 'Bad request' },
  NotOpenCheckout: { refusal: 'forbidden', detail: 'Checkout is not open.' },
  AlreadyActiveSubscriptionError: {
    refusal: 'forbidden',
    detail: 'You already have an active subscription.',
  },
  ExpiredCheckoutError: { refusal: 'gone', detail: 'This checkout session has expired.' },
  // A paid checkout of an organization that has not submitted its details (outside a sandbox).
  PaymentNotReady: {
    refusal: 'forbidden',
    detail: 'This organization is not ready to accept payments yet.',
  },
  // Tollgate's own: an invoice link past its hour (commerce/orders/invoice.ts).
  ExpiredInvoiceLink: {
    refusal: 'gone',
    detail: 'This invoice link has expired; ask for the invoice again for a new one.',
  },
  InvoiceAlreadyExists: {
    refusal: 'conflict',
    detail: 'An invoice already exists for this order.',
  },
  MissingInvoiceBillingDetails: {
    refusal: 'unprocessable',
    detail: 'Billing name and address are required.',
  },
  NotPaidOrder: { refusal: 'unprocessable', detail: 'The order is not paid.' },
  // The customer portal's retry of a failed renewal (customerPortal.orders.confirmRetryPayment).
  PaymentAlreadyInProgress: {
    refusal: 'conflict',
    detail: 'A payment for this order is already in progress.',
  },
  OrderNotEligibleForRetry: {
    refusal: 'unprocessable',
    detail: 'This order has no failed payment to retry.',
  },
  // The customer portal's cards (customerPortal.customers.*PaymentMethod).
  CustomerNotReady: {
    refusal: 'invalid',
    detail: 'Add a payment method before confirming one.',
  },
  PaymentMethodInUseByActiveSubscription: {
    refusal: 'invalid',
    detail:
      'This payment method pays for an active subscription; make another one the default first.',
  },
  AlreadyCanceledSubscription: {
    refusal: 'forbidden',
    detail: 'This subscription is already canceled or will be at the end of the period.',
  },
  SubscriptionLocked: {
    refusal: 'conflict',
    detail: 'This subscription is being renewed or changed; try again in a moment.',
  },
  RefundAmountTooHigh: {
    refusal: 'invalid',
    detail: 'Refund amount exceeds remaining order balance.',
  },
  RefundedAlready: { refusal: 'forbidden', detail: 'Order is already fully refunded.' },
  PaymentError: { refusal: 'invalid', detail: 'The payment failed.' },
  // Tollgate's own: a public route's per-IP limit (commerce/http/rate-limits.ts).
  TooManyRequests: {
    refusal: 'rate_limited',
    detail: 'Too many requests. Please try again later.',
  },
  // Tollgate's own: finance actions on a subscription whose renewal is not failing.
  NotPastDueSubscription: {
    refusal: 'conflict',
    detail: 'This subscription has no failed renewal to act on.',
  },
  // Tollgate's own: test clocks exist in sandboxes only, and advance forward one step at a time.
  TestClockNotAvailable: {
    refusal: 'forbidden',
    detail: 'Test clocks are available in sandboxes only.',
  },
  TestClockAdvancing: {
    refusal: 'conflict',
    detail: 'This test clock is still advancing; wait until it is ready.',
  },
  // Tollgate's own: a seller's "Connect a Discord server" / "Connect GitHub" (benefit-connections).
  IntegrationNotConfigured: {
    refusal: 'forbidden',
    detail: 'Connecting this service is not set up on this server.',
  },
  IntegrationRefused: {
    refusal: 'unprocessable',
    detail: 'The service refused the connection; start connecting again.',
  },
  TestClockInUse: {
    refusal: 'conflict',
    detail: 'This test clock still drives live subscriptions; cancel them before deleting it.',
  },
  // Tollgate's own: a checkout changed each time Stripe Tax was asked for its change (pricing.ts).
  CheckoutChangedWhileTaxed: {
    refusal: 'conflict',
    detail: 'The checkout kept changing while its tax was calculated; try again.',
  },
  // Tollgate's own: one seller-defined tax rate per country and subdivision (commerce/tax-rates).
  TaxRateAlreadyExists: {
    refusal: 'conflict',
    detail: 'A tax rate for this country and subdivision already exists; update it instead.',
  },
} as const;

export type CommerceErrorName = keyof typeof commerceErrors;

export function commerceError(name: CommerceErrorName, detail?: string): AppError {
  const known = commerceErrors[name];
  return new AppError(known.refusal, name, detail ?? known.detail);
}

/** Unknown ids and other organizations' ids answer alike: nothing tells them apart. */
export const resourceNotFound = (detail?: string) => commerceError('ResourceNotFound', detail);

export const notPermitted = (detail?: string) => commerceError('NotPermitted', detail);

/** Business-rule refusals of several fields, answered together (Polar's 422, as `invalidField`). */
export const invalidFields = (issues: ValidationIssue[]) =>
  new RequestValidationError(issues, 'PolarRequestValidationError');
