import { useState } from 'react';
import { formatMoney } from '../checkout/money';
import type { CustomerOrder, PaymentConfirmation, PaymentMethod, PortalCustomer } from './api';
import { authenticate } from './authentication';
import { CardForm } from './CardForm';
import { Dialog } from './Dialog';
import { useAction, usePortal, useProblem } from './resource';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `Visa •••• 4242` (screen readers hear "Visa ending 4242"). */
export function CardName({ method }: { method: PaymentMethod }) {
  const card = method.method_metadata;
  if (!card) return <>{capitalized(method.type.replace(/_/g, ' '))}</>;
  return (
    <>
      {capitalized(card.brand)} <span aria-hidden="true">••••</span>
      <span className="visually-hidden">ending</span> {card.last4}
    </>
  );
}

export const expiry = (method: PaymentMethod) =>
  method.method_metadata &&
  `${String(method.method_metadata.exp_month).padStart(2, '0')}/${method.method_metadata.exp_year}`;

/** The customer's default card, else the only one. */
export function defaultMethod(customer: PortalCustomer, methods: PaymentMethod[]) {
  return (
    methods.find((method) => method.id === customer.default_payment_method_id) ??
    (methods.length === 1 ? methods[0] : undefined)
  );
}

/**
 * What a confirm-payment answer of order `orderId` comes to for the customer: null when paid
 * (or, after the bank's 3-D Secure check, being settled; after the challenge page,
 * AfterAuthentication says how it went), else the problem to show.
 */
export async function paymentOutcome(
  orderId: string,
  answer: PaymentConfirmation,
): Promise<string | null> {
  if (answer.status === 'requires_action' && answer.client_secret) {
    const asked = { client_secret: answer.client_secret, next_action_url: answer.next_action_url };
    const run = await authenticate(asked, { kind: 'payment', orderId });
    return run.ended ? run.problem : null;
  }
  if (answer.status === 'succeeded' || answer.status === 'pending') return null;
  return answer.error ?? 'The payment failed. Try another card.';
}

const retryRefusals = {
  PaymentAlreadyInProgress: 'A payment for this order is already in progress. Check back shortly.',
  OrderNotEligibleForRetry: 'This order cannot be paid again from here.',
};

/** An order is waiting for a payment the customer can make: a renewal whose charge failed. */
export const awaitsPayment = (order: CustomerOrder) =>
  order.status === 'pending' && order.subscription_id !== null;

interface PayNowProps {
  order: CustomerOrder;
  methods: PaymentMethod[];
  onPaid: () => void;
}

/** "Pay now" for a failed renewal: with a saved card or a new one (confirm-payment). */
export function PayNow({ order, methods, onPaid }: PayNowProps) {
  const { api } = usePortal();
  const describe = useProblem();
  const [open, setOpen] = useState(false);
  const [newCard, setNewCard] = useState(methods.length === 0);
  const saved = useAction();
  const amount = formatMoney(order.total_amount, order.currency);

  const settle = async (answer: PaymentConfirmation) => {
    const problem = await paymentOutcome(order.id, answer);
    if (problem === null) {
      setOpen(false);
      onPaid();
    }
    return problem;
  };

  return (
    <>
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        Pay {amount} now
      </button>
      {open && (
        <Dialog title={`Pay ${amount} for ${order.product.name}`} onClose={() => setOpen(false)}>
          {!newCard && (
            <div className="portal-stack">
              {methods.map((method) => (
                <button
                  key={method.id}
                  type="button"
                  className="primary"
                  disabled={saved.busy}
                  onClick={() =>
                    saved.run(async () => {
                      const problem = await settle(await api.confirmPayment(order.id, method.id));
                      if (problem) throw new Error(problem);
                    }, retryRefusals)
                  }
                >
                  Pay with <CardName method={method} />
                </button>
              ))}
              {saved.problem && (
                <p className="field-error" role="alert">
                  {saved.problem}
                </p>
              )}
              <button type="button" className="secondary" onClick={() => setNewCard(true)}>
                Use a new card
              </button>
              <button type="button" className="secondary" onClick={() => setOpen(false)}>
                Not now
              </button>
            </div>
          )}
          {newCard && (
            <CardForm
              label="New card"
              submitLabel={`Pay ${amount}`}
              amount={order.total_amount}
              currency={order.currency}
              onCancel={() => setOpen(false)}
              onToken={async (confirmationTokenId) => {
                try {
                  return await settle(await api.confirmPayment(order.id, confirmationTokenId));
                } catch (error) {
                  return describe(error);
                }
              }}
            />
          )}
        </Dialog>
      )}
    </>
  );
}

const invoiceRefusals = {
  MissingInvoiceBillingDetails:
    'An invoice needs your billing name and address: add them under Billing details first.',
  NotPaidOrder: 'The invoice is available once the order is paid.',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const refusalOf = (error: unknown) => (error as { error?: string } | null)?.error;

/** Opens the invoice in a new tab (here when the browser blocks it). */
function openInvoice(url: string) {
  const opened = window.open(url, '_blank');
  if (opened) opened.opener = null;
  else window.location.assign(url);
}

/**
 * Opens an order's invoice, making it out first when it is not yet: an order without billing
 * details gets the customer's (Billing details) before.
 */
export function InvoiceButton({ order }: { order: CustomerOrder }) {
  const { api } = usePortal();
  const { busy, problem, run } = useAction();
  if (!order.paid) return null;
  const makeOut = () =>
    api.generateInvoice(order.id).catch((error) => {
      // Made since the list was read: open it.
      if (refusalOf(error) !== 'InvoiceAlreadyExists') throw error;
    });
  const download = () =>
    run(async () => {
      if (!order.is_invoice_generated) {
        await makeOut().catch(async (error) => {
          if (refusalOf(error) !== 'MissingInvoiceBillingDetails') throw error;
          const { billing_name: name, billing_address: address } = await api.customer();
          if (!name || !address) throw error;
          await api.updateOrder(order.id, { billing_name: name, billing_address: address });
          await makeOut();
        });
      }
      // The invoice is made in the background: a few tries while it is.
      for (let attempt = 0; ; attempt += 1) {
        try {
          const { url } = await api.invoice(order.id);
          openInvoice(url);
          return;
        } catch (error) {
          if (attempt >= 10 || (error as { status?: number }).status !== 404) throw error;
          await sleep(500);
        }
      }
    }, invoiceRefusals);
  return (
    <span className="portal-inline">
      <button type="button" className="link" onClick={download} disabled={busy}>
        {busy ? 'Preparing invoice…' : 'Invoice'}
        <span className="visually-hidden"> {order.invoice_number}</span>
      </button>
      {problem && (
        <span className="field-error" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
