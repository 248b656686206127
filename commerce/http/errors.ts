import { ApiError, RequestValidationError, type ValidationIssue } from '../../api/errors.ts';

/**
 * The error classes of the commerce API. The name is the `error` literal Polar's SDK matches to
 * pick its typed error, so it must be spelled exactly; the detail is the default message.
 */
export const commerceErrors = {
  Unauthorized: { status: 401, detail: 'Unauthorized' },
  NotPermitted: { status: 403, detail: 'You are not permitted to do this.' },
  ResourceNotFound: { status: 404, detail: 'Not found' },
  BadRequest: { status: 400, detail: 'Bad request' },
  NotOpenCheckout: { status: 403, detail: 'Checkout is not open.' },
  AlreadyActiveSubscriptionError: {
    status: 403,
    detail: 'You already have an active subscription.',
  },
  ExpiredCheckoutError: { status: 410, detail: 'This checkout session has expired.' },
  // Tollgate's own: an invoice link past its hour (commerce/orders/invoice.ts).
  ExpiredInvoiceLink: {
    status: 410,
    detail: 'This invoice link has expired; ask for the invoice again for a new one.',
  },
  InvoiceAlreadyExists: { status: 409, detail: 'An invoice already exists for this order.' },
  MissingInvoiceBillingDetails: { status: 422, detail: 'Billing name and address are required.' },
  NotPaidOrder: { status: 422, detail: 'The order is not paid.' },
  AlreadyCanceledSubscription: {
    status: 403,
    detail: 'This subscription is already canceled or will be at the end of the period.',
  },
  SubscriptionLocked: {
    status: 409,
    detail: 'This subscription is being renewed or changed; try again in a moment.',
  },
  RefundAmountTooHigh: { status: 400, detail: 'Refund amount exceeds remaining order balance.' },
  RefundedAlready: { status: 403, detail: 'Order is already fully refunded.' },
  PaymentError: { status: 400, detail: 'The payment failed.' },
  // Tollgate's own: a public route's per-IP limit (commerce/http/rate-limits.ts).
  TooManyRequests: { status: 429, detail: 'Too many requests. Please try again later.' },
  // Tollgate's own: finance actions on a subscription whose renewal is not failing.
  NotPastDueSubscription: {
    status: 409,
    detail: 'This subscription has no failed renewal to act on.',
  },
  // Tollgate's own: test clocks exist in sandboxes only, and advance forward one step at a time.
  TestClockNotAvailable: { status: 403, detail: 'Test clocks are available in sandboxes only.' },
  TestClockAdvancing: {
    status: 409,
    detail: 'This test clock is still advancing; wait until it is ready.',
  },
  TestClockInUse: {
    status: 409,
    detail: 'This test clock still drives live subscriptions; cancel them before deleting it.',
  },
} as const;

export type CommerceErrorName = keyof typeof commerceErrors;

export function commerceError(name: CommerceErrorName, detail?: string): ApiError {
  const known = commerceErrors[name];
  return new ApiError(known.status, name, detail ?? known.detail);
}

/** Unknown ids and other organizations' ids answer alike: nothing tells them apart. */
export const resourceNotFound = (detail?: string) => commerceError('ResourceNotFound', detail);

export const notPermitted = (detail?: string) => commerceError('NotPermitted', detail);

/** Business-rule refusals of several fields, answered together (Polar's 422, as `invalidField`). */
export const invalidFields = (issues: ValidationIssue[]) =>
  new RequestValidationError(issues, 'PolarRequestValidationError');
