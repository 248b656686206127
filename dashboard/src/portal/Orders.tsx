import { formatMoney } from '../checkout/money';
import type { CustomerOrder } from './api';
import { awaitsPayment, InvoiceButton, PayNow } from './payments';
import { formatDate, Loaded, useResource } from './resource';

const statusLabels: Record<CustomerOrder['status'], string> = {
  pending: 'Pending',
  paid: 'Paid',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
};

/** Every order, newest first: its invoice, and "pay now" for a renewal whose charge failed. */
export function Orders({ focusId }: { focusId: string | null }) {
  const orders = useResource(async (api) => {
    const [page, methods] = await Promise.all([
      api.orders(),
      api.paymentMethods().then(
        (found) => found.items,
        () => [],
      ),
    ]);
    return { orders: page.items, methods };
  });
  return (
    <section aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      <Loaded resource={orders} what="your orders">
        {({ orders: items, methods }) =>
          items.length === 0 ? (
            <p className="portal-empty">No orders yet.</p>
          ) : (
            <ul className="portal-cards">
              {items.map((order) => (
                <li
                  key={order.id}
                  className={`portal-card${order.id === focusId ? ' portal-card-focused' : ''}`}
                  ref={
                    order.id === focusId
                      ? (element) => element?.scrollIntoView({ block: 'start' })
                      : undefined
                  }
                >
                  <article aria-label={`Order ${order.invoice_number}`} className="portal-order">
                    <div>
                      <strong>{order.product.name}</strong>
                      <p className="muted">
                        {formatDate(order.created_at)} · {order.invoice_number}
                      </p>
                    </div>
                    <div className="portal-order-amount">
                      <span className="amount">
                        {formatMoney(order.total_amount, order.currency)}
                      </span>
                      <span className={`portal-badge portal-badge-${order.status}`}>
                        {awaitsPayment(order) ? 'Payment failed' : statusLabels[order.status]}
                      </span>
                    </div>
                    <div className="portal-actions">
                      <InvoiceButton order={order} />
                      {awaitsPayment(order) && (
                        <>
                          {order.next_payment_attempt_at && (
                            <span className="muted">
                              Next automatic attempt {formatDate(order.next_payment_attempt_at)}
                            </span>
                          )}
                          <PayNow order={order} methods={methods} onPaid={orders.reload} />
                        </>
                      )}
                    </div>
                  </article>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}
