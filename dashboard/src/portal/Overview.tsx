import { formatMoney } from '../checkout/money';
import { waitsForAccount } from './Benefits';
import { awaitsPayment } from './payments';
import { formatDate, Loaded, useResource } from './resource';
import { nextCharge } from './Subscriptions';

interface OverviewProps {
  /** Opens a section of the portal (its hash). */
  sectionHref: (section: string) => string;
}

/** The first page: what needs attention, the live subscriptions and the latest orders. */
export function Overview({ sectionHref }: OverviewProps) {
  const summary = useResource(async (api) => {
    const [subscriptions, orders, grants, customer] = await Promise.all([
      api.subscriptions(),
      api.orders(),
      api.grants(),
      api.customer(),
    ]);
    return {
      subscriptions: subscriptions.items,
      orders: orders.items,
      grants: grants.items,
      customer,
    };
  });
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      <Loaded resource={summary} what="your account">
        {({ subscriptions, orders, grants, customer }) => {
          const live = subscriptions.filter(
            (subscription) =>
              subscription.status !== 'canceled' && subscription.status !== 'incomplete_expired',
          );
          const unpaid = orders.filter(awaitsPayment);
          const waiting = grants.filter((grant) => waitsForAccount(grant, customer));
          return (
            <>
              {unpaid.length > 0 && (
                <div className="banner-error" role="alert">
                  <p>
                    A payment failed: {unpaid.map((order) => order.product.name).join(', ')}.{' '}
                    <a href={sectionHref('subscriptions')}>Fix it now</a>
                  </p>
                </div>
              )}
              {waiting.length > 0 && (
                <p className="portal-notice">
                  {waiting.length === 1 ? 'A benefit waits' : 'Benefits wait'} for you to connect an
                  account. <a href={sectionHref('benefits')}>Connect</a>
                </p>
              )}
              {customer.balance && customer.balance.balance !== 0 && (
                <AccountBalance balance={customer.balance} />
              )}
              <h3>Subscriptions</h3>
              {live.length === 0 ? (
                <p className="portal-empty">No active subscriptions.</p>
              ) : (
                <ul className="portal-rows">
                  {live.map((subscription) => (
                    <li key={subscription.id}>
                      <a href={sectionHref('subscriptions')}>{subscription.product.name}</a>
                      <span className="muted">{nextCharge(subscription)}</span>
                    </li>
                  ))}
                </ul>
              )}
              <h3>Latest orders</h3>
              {orders.length === 0 ? (
                <p className="portal-empty">No orders yet.</p>
              ) : (
                <ul className="portal-rows">
                  {orders.slice(0, 5).map((order) => (
                    <li key={order.id}>
                      <span>{order.product.name}</span>
                      <span className="muted">{formatDate(order.created_at)}</span>
                      <span className="amount">
                        {formatMoney(order.total_amount, order.currency)}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              {orders.length > 5 && <a href={sectionHref('orders')}>All orders</a>}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

/** The customer's balance with the seller: credit is spent by the next order before the card. */
function AccountBalance({ balance }: { balance: { balance: number; currency: string } }) {
  const credit = balance.balance > 0;
  return (
    <p className="portal-notice" data-testid="account-balance">
      {credit ? 'Account credit' : 'Account balance'}:{' '}
      <strong>{formatMoney(balance.balance, balance.currency)}</strong>
      {credit && ', used by your next order before your card.'}
    </p>
  );
}
