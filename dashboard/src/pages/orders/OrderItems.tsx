import { Money } from '../../components/Money';
import type { Order } from './api';
import './sales.css';

/** The order's lines with their amounts and tax, totalled as the order is. */
export function OrderItems({ order }: { order: Order }) {
  if (order.items.length === 0) return <p className="muted">This order has no items.</p>;
  const money = (amount: number) => <Money amount={amount} currency={order.currency} />;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Items</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="col-amount">
              Amount
            </th>
            <th scope="col" className="col-amount">
              Tax
            </th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <td>
                {item.label}
                {item.proration && <span className="muted"> (proration)</span>}
              </td>
              <td className="col-amount">{money(item.amount)}</td>
              <td className="col-amount">{money(item.tax_amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
