import { useEffect, useState } from 'react';
import {
  CheckoutApiError,
  type CustomerOrder,
  getPortalCustomer,
  listGrants,
  listOrders,
  type PortalCustomer,
} from './api';
import { type Granted, GrantedBenefit, withLicenseKey } from './granted';
import { formatMoney } from './money';

const storageKey = 'tollgate.portal.session';

/**
 * The session token of the portal link (`?customer_session_token=…`), kept for the tab and
 * taken out of the address bar so it is not bookmarked or shared by accident.
 */
function portalToken(): string | null {
  const url = new URL(window.location.href);
  const fromLink = url.searchParams.get('customer_session_token');
  try {
    if (fromLink) {
      sessionStorage.setItem(storageKey, fromLink);
      url.searchParams.delete('customer_session_token');
      window.history.replaceState(null, '', url.pathname + url.search);
      return fromLink;
    }
    return sessionStorage.getItem(storageKey);
  } catch {
    return fromLink;
  }
}

interface Portal {
  customer: PortalCustomer;
  orders: CustomerOrder[];
  benefits: Granted[];
}

const orderStatus: Record<CustomerOrder['status'], string> = {
  pending: 'Pending',
  paid: 'Paid',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
};

/** The customer portal a customer session opens: its orders and its benefits. */
export function PortalPage() {
  const [token] = useState(portalToken);
  const [portal, setPortal] = useState<Portal | null>(null);
  const [problem, setProblem] = useState<string | null>(
    token ? null : 'Open the link from your email to see your purchases.',
  );

  useEffect(() => {
    if (!token) return;
    Promise.all([getPortalCustomer(token), listOrders(token), listGrants(token)])
      .then(async ([customer, orders, grants]) => {
        const benefits = await Promise.all(
          grants.items.map((grant) => withLicenseKey(token, grant)),
        );
        setPortal({ customer, orders: orders.items, benefits });
      })
      .catch((error) => {
        setProblem(
          error instanceof CheckoutApiError && error.status === 401
            ? 'This link has expired. Ask for a new one.'
            : 'Your purchases could not be loaded. Try again later.',
        );
      });
  }, [token]);

  if (problem) {
    return (
      <main className="confirmation">
        <h1>Your purchases</h1>
        <p role="alert">{problem}</p>
      </main>
    );
  }
  if (!portal) {
    return (
      <main className="confirmation" aria-busy="true">
        Loading your purchases…
      </main>
    );
  }
  const granted = portal.benefits.filter(({ grant }) => grant.is_granted || !grant.is_revoked);
  return (
    <main className="confirmation">
      <h1>Your purchases</h1>
      <p className="organization">{portal.customer.email}</p>
      <section aria-labelledby="orders-title">
        <h2 id="orders-title">Orders</h2>
        {portal.orders.length === 0 ? (
          <p>No orders yet.</p>
        ) : (
          <table className="orders">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Product</th>
                <th scope="col">Invoice</th>
                <th scope="col">Status</th>
                <th scope="col" className="amount">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {portal.orders.map((order) => (
                <tr key={order.id}>
                  <td>{new Date(order.created_at).toLocaleDateString('en-US')}</td>
                  <td>
                    {order.product.name}
                    <span className="muted"> — {order.product.organization.name}</span>
                  </td>
                  <td>{order.invoice_number}</td>
                  <td>{orderStatus[order.status]}</td>
                  <td className="amount">{formatMoney(order.total_amount, order.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="portal-benefits-title">
        <h2 id="portal-benefits-title">Benefits</h2>
        {granted.length === 0 ? (
          <p>No benefits yet.</p>
        ) : (
          <ul className="granted-benefits">
            {granted.map(({ grant, licenseKey }) => (
              <GrantedBenefit key={grant.id} grant={grant} licenseKey={licenseKey} />
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
