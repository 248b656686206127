import { useEffect, useState } from 'react';
import { minimumSeats } from '../../../domain/prices.ts';
import { formatMoney } from '../checkout/money';
import {
  type CancellationReason,
  type CustomerOrder,
  type CustomerProduct,
  type CustomerSubscription,
  cancellationReasons,
  getOrganization,
  type PaymentMethod,
  type PortalCustomer,
  type SubscriptionStatus,
} from './api';
import { AddCardForm, CardForm } from './CardForm';
import { Dialog } from './Dialog';
import {
  awaitsPayment,
  CardName,
  defaultMethod,
  InvoiceButton,
  PayNow,
  paymentOutcome,
} from './payments';
import { formatDate, Loaded, useAction, usePortal, useProblem, useResource } from './resource';
import { formatUnits } from './units';

const statusLabels: Record<SubscriptionStatus, string> = {
  incomplete: 'Incomplete',
  incomplete_expired: 'Expired',
  trialing: 'Free trial',
  active: 'Active',
  past_due: 'Payment failed',
  canceled: 'Canceled',
  unpaid: 'Unpaid',
};

export const perInterval = (subscription: Pick<CustomerSubscription, 'recurring_interval'>) =>
  ` / ${subscription.recurring_interval}`;

/** "Next charge … on …", "Ends on …", "Ended on …" or an unpaid renewal: what is next for the subscription. */
export function nextCharge(subscription: CustomerSubscription): string {
  const { status, current_period_end: periodEnd } = subscription;
  if (status === 'canceled' || status === 'incomplete_expired') {
    const ended = subscription.ended_at ?? subscription.ends_at;
    return ended ? `Ended on ${formatDate(ended)}` : 'Ended';
  }
  if (subscription.cancel_at_period_end) {
    const ends = subscription.ends_at ?? periodEnd;
    return ends
      ? `Ends on ${formatDate(ends)}, no further charges`
      : 'Ends at the end of the period';
  }
  const amount = formatMoney(subscription.amount, subscription.currency);
  if (status === 'past_due' || status === 'unpaid') return `The ${amount} renewal is unpaid`;
  if (status === 'trialing' && subscription.trial_end) {
    return `Free until ${formatDate(subscription.trial_end)}, then ${amount}${perInterval(subscription)}`;
  }
  return periodEnd ? `Next charge ${amount} on ${formatDate(periodEnd)}` : `${amount} each period`;
}

const isLive = (subscription: CustomerSubscription) =>
  subscription.status !== 'canceled' && subscription.status !== 'incomplete_expired';

interface Account {
  subscriptions: CustomerSubscription[];
  orders: CustomerOrder[];
  customer: PortalCustomer;
  methods: PaymentMethod[] | null;
}

/** The subscriptions with what each needs: its orders, and the card it is charged to. */
async function loadAccount(api: ReturnType<typeof usePortal>['api']): Promise<Account> {
  const [subscriptions, orders, customer, methods] = await Promise.all([
    api.subscriptions(),
    api.orders(),
    api.customer(),
    // The cards are shown when they can be read; the rest of the page does not wait on them.
    api.paymentMethods().then(
      (page) => page.items,
      () => null,
    ),
  ]);
  return { subscriptions: subscriptions.items, orders: orders.items, customer, methods };
}

/** The customer's subscriptions: next charge, card, last invoices, and what can be done. */
export function Subscriptions({ focusId }: { focusId: string | null }) {
  const account = useResource(loadAccount);
  return (
    <section aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Subscriptions</h2>
      <Loaded resource={account} what="your subscriptions">
        {({ subscriptions, orders, customer, methods }) =>
          subscriptions.length === 0 ? (
            <p className="portal-empty">You have no subscriptions.</p>
          ) : (
            <ul className="portal-cards">
              {subscriptions.map((subscription) => (
                <SubscriptionCard
                  key={subscription.id}
                  subscription={subscription}
                  orders={orders.filter((order) => order.subscription_id === subscription.id)}
                  card={methods && defaultMethod(customer, methods)}
                  methods={methods ?? []}
                  focused={subscription.id === focusId}
                  onChanged={account.reload}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

interface SubscriptionCardProps {
  subscription: CustomerSubscription;
  orders: CustomerOrder[];
  /** The card renewals charge; null when the cards could not be read. */
  card: PaymentMethod | null | undefined;
  methods: PaymentMethod[];
  focused: boolean;
  onChanged: () => Promise<void>;
}

type Opened = 'cancel' | 'plan' | 'seats' | 'card' | null;

function SubscriptionCard({
  subscription,
  orders,
  card,
  methods,
  focused,
  onChanged,
}: SubscriptionCardProps) {
  const { api } = usePortal();
  const [opened, setOpened] = useState<Opened>(null);
  const uncancel = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const titleId = `subscription-${subscription.id}`;
  const live = isLive(subscription);
  const unpaid = orders.filter(awaitsPayment);
  // A renewal that failed: a new card pays it (the retry makes it the subscription's card).
  const failedRenewal = subscription.status === 'past_due' ? unpaid[0] : undefined;
  const describe = useProblem();

  useEffect(() => {
    if (focused) document.getElementById(titleId)?.scrollIntoView({ block: 'start' });
  }, [focused, titleId]);

  const done = async (message: string) => {
    setOpened(null);
    setNotice(message);
    await onChanged();
  };

  return (
    <li className={`portal-card${focused ? ' portal-card-focused' : ''}`}>
      <article aria-labelledby={titleId}>
        <header className="portal-card-header">
          <h3 id={titleId}>{subscription.product.name}</h3>
          <span className={`portal-badge portal-badge-${subscription.status}`}>
            {subscription.cancel_at_period_end && live
              ? 'Canceling'
              : statusLabels[subscription.status]}
          </span>
        </header>
        <p className="portal-price">
          {formatMoney(subscription.amount, subscription.currency)}
          <span className="muted">{perInterval(subscription)}</span>
          {subscription.seats != null && (
            <span className="muted" data-testid="seats">
              {' '}
              · {subscription.seats} {subscription.seats === 1 ? 'seat' : 'seats'}
            </span>
          )}
        </p>
        <p data-testid="next-charge">{nextCharge(subscription)}</p>

        {subscription.status === 'past_due' && (
          <div className="banner-error" role="alert">
            <p>Your last payment failed. Update your card or pay now to keep your subscription.</p>
            {unpaid.map((order) => (
              <PayNow
                key={order.id}
                order={order}
                methods={methods}
                onPaid={() => done('Thank you: the payment went through.')}
              />
            ))}
          </div>
        )}

        {subscription.meters.length > 0 && (
          <>
            <h4>Usage this period</h4>
            <ul className="portal-rows">
              {subscription.meters.map((usage) => (
                <li key={usage.id}>
                  <span>
                    {usage.meter.name}
                    <span className="muted"> · {formatUnits(usage.consumed_units)} units</span>
                  </span>
                  <span className="amount">{formatMoney(usage.amount, subscription.currency)}</span>
                </li>
              ))}
            </ul>
          </>
        )}

        <dl className="portal-facts">
          <dt>Card</dt>
          <dd>
            {card === null ? (
              <span className="muted">Could not be read</span>
            ) : card ? (
              <CardName method={card} />
            ) : (
              <span className="muted">No card on file</span>
            )}
          </dd>
        </dl>

        <h4>Last invoices</h4>
        {orders.length === 0 ? (
          <p className="portal-empty">No invoices yet.</p>
        ) : (
          <ul className="portal-rows">
            {orders.slice(0, 3).map((order) => (
              <li key={order.id}>
                <span>{formatDate(order.created_at)}</span>
                <span className="amount">{formatMoney(order.total_amount, order.currency)}</span>
                {order.paid ? <InvoiceButton order={order} /> : <span>Unpaid</span>}
              </li>
            ))}
          </ul>
        )}

        {notice && (
          <p className="portal-notice" role="status">
            {notice}
          </p>
        )}
        {live && (
          <div className="portal-actions">
            {subscription.cancel_at_period_end ? (
              <button
                type="button"
                className="primary"
                disabled={uncancel.busy}
                onClick={async () => {
                  const kept = await uncancel.run(() =>
                    api.updateSubscription(subscription.id, { cancel_at_period_end: false }),
                  );
                  if (kept) await done('Your subscription continues.');
                }}
              >
                Keep subscription
              </button>
            ) : (
              <button type="button" className="secondary" onClick={() => setOpened('cancel')}>
                Cancel subscription
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setOpened('plan')}>
              Change plan
            </button>
            {subscription.seats != null && (
              <button type="button" className="secondary" onClick={() => setOpened('seats')}>
                Change seats
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setOpened('card')}>
              Update card
            </button>
          </div>
        )}
        {uncancel.problem && (
          <p className="field-error" role="alert">
            {uncancel.problem}
          </p>
        )}
      </article>

      {opened === 'cancel' && (
        <CancelDialog
          subscription={subscription}
          onClose={() => setOpened(null)}
          onCanceled={() =>
            done('Canceled: you keep it until the period ends, and can still change your mind.')
          }
        />
      )}
      {opened === 'plan' && (
        <ChangePlanDialog
          subscription={subscription}
          onClose={() => setOpened(null)}
          onChanged={(name) => done(`Your plan is now ${name}.`)}
        />
      )}
      {opened === 'seats' && (
        <ChangeSeatsDialog
          subscription={subscription}
          onClose={() => setOpened(null)}
          onChanged={(seats) => done(`You now have ${seats} seats.`)}
        />
      )}
      {opened === 'card' && (
        <Dialog title="Update card" onClose={() => setOpened(null)}>
          {failedRenewal ? (
            <>
              <p className="muted">
                The new card pays the failed renewal now and then becomes this subscription’s card.
              </p>
              <CardForm
                label="New card"
                submitLabel={`Pay ${formatMoney(failedRenewal.total_amount, failedRenewal.currency)} with this card`}
                amount={failedRenewal.total_amount}
                currency={failedRenewal.currency}
                onCancel={() => setOpened(null)}
                onToken={async (confirmationTokenId) => {
                  try {
                    const problem = await paymentOutcome(
                      failedRenewal.id,
                      await api.confirmPayment(failedRenewal.id, confirmationTokenId),
                    );
                    if (problem === null)
                      await done('Thank you: your card was updated and the payment went through.');
                    return problem;
                  } catch (error) {
                    return describe(error);
                  }
                }}
              />
            </>
          ) : (
            <>
              <p className="muted">
                The new card becomes your default: renewals are charged to it.
              </p>
              <AddCardForm
                amount={subscription.amount}
                currency={subscription.currency}
                setDefault
                onCancel={() => setOpened(null)}
                onAdded={() => done('Your card was updated.')}
              />
            </>
          )}
        </Dialog>
      )}
    </li>
  );
}

interface CancelDialogProps {
  subscription: CustomerSubscription;
  onClose: () => void;
  onCanceled: () => void;
}

function CancelDialog({ subscription, onClose, onCanceled }: CancelDialogProps) {
  const { api } = usePortal();
  const { busy, problem, run } = useAction();
  const [reason, setReason] = useState<CancellationReason | ''>('');
  const [comment, setComment] = useState('');
  const ends = subscription.current_period_end;
  return (
    <Dialog title={`Cancel ${subscription.product.name}?`} onClose={onClose}>
      <form
        className="portal-stack"
        onSubmit={async (event) => {
          event.preventDefault();
          const canceled = await run(() =>
            api.updateSubscription(subscription.id, {
              cancel_at_period_end: true,
              cancellation_reason: reason || null,
              cancellation_comment: comment.trim() || null,
            }),
          );
          if (canceled) onCanceled();
        }}
      >
        <p>
          {ends
            ? `You keep access until ${formatDate(ends)}; nothing more is charged.`
            : 'You keep access until the end of the period; nothing more is charged.'}
        </p>
        <div className="field">
          <label htmlFor="cancel-reason">
            Reason <span className="optional-mark">(optional)</span>
          </label>
          <select
            id="cancel-reason"
            value={reason}
            onChange={(event) => setReason(event.target.value as CancellationReason)}
          >
            <option value="">Choose a reason</option>
            {cancellationReasons.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="cancel-comment">
            Anything we could do better? <span className="optional-mark">(optional)</span>
          </label>
          <textarea
            id="cancel-comment"
            rows={3}
            maxLength={1000}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
        </div>
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="portal-actions">
          <button type="submit" className="danger" disabled={busy}>
            {busy ? 'Canceling…' : 'Cancel subscription'}
          </button>
          <button type="button" className="secondary" onClick={onClose} disabled={busy}>
            Keep it
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const recurringPrice = (product: CustomerProduct) =>
  product.prices.find((price) => !price.is_archived && price.type === 'recurring');

interface ChangePlanDialogProps {
  subscription: CustomerSubscription;
  onClose: () => void;
  onChanged: (productName: string) => void;
}

/** The organization's other recurring products, and moving the subscription to one. */
function ChangePlanDialog({ subscription, onClose, onChanged }: ChangePlanDialogProps) {
  const { api } = usePortal();
  const describe = useProblem();
  const { busy, problem, run } = useAction();
  const [plans, setPlans] = useState<CustomerProduct[] | null>(null);
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [chosen, setChosen] = useState('');
  const slug = subscription.product.organization.slug;

  useEffect(() => {
    getOrganization(slug).then(
      ({ products }) =>
        setPlans(
          products.filter(
            (product) =>
              product.is_recurring &&
              !product.is_archived &&
              product.id !== subscription.product_id,
          ),
        ),
      (error) => setLoadProblem(describe(error, 'The plans could not be loaded.')),
    );
  }, [slug, subscription.product_id, describe]);

  const planLabel = (product: CustomerProduct) => {
    const price = recurringPrice(product);
    const amount =
      price?.amount_type === 'fixed'
        ? `${formatMoney(price.price_amount, price.price_currency)} / ${price.recurring_interval ?? product.recurring_interval}`
        : price?.amount_type === 'free'
          ? 'Free'
          : '';
    return amount ? `${product.name} — ${amount}` : product.name;
  };

  const target = plans?.find((product) => product.id === chosen);
  return (
    <Dialog title="Change plan" onClose={onClose}>
      {loadProblem && (
        <p className="field-error" role="alert">
          {loadProblem}
        </p>
      )}
      {!plans && !loadProblem && <p className="muted">Loading plans…</p>}
      {plans && plans.length === 0 && (
        <p className="portal-empty">There is no other plan to move to.</p>
      )}
      {plans && plans.length > 0 && (
        <form
          className="portal-stack"
          onSubmit={async (event) => {
            event.preventDefault();
            if (!target) return;
            const changed = await run(() =>
              api.updateSubscription(subscription.id, { product_id: target.id }),
            );
            if (changed) onChanged(target.name);
          }}
        >
          <div className="field">
            <label htmlFor="new-plan">New plan</label>
            <select
              id="new-plan"
              value={chosen}
              required
              onChange={(event) => setChosen(event.target.value)}
            >
              <option value="">Choose a plan</option>
              {plans.map((product) => (
                <option key={product.id} value={product.id}>
                  {planLabel(product)}
                </option>
              ))}
            </select>
          </div>
          <p className="muted">
            Currently {subscription.product.name},{' '}
            {formatMoney(subscription.amount, subscription.currency)}
            {perInterval(subscription)}. The price difference is settled as the seller’s billing
            terms say.
          </p>
          {problem && (
            <p className="field-error" role="alert">
              {problem}
            </p>
          )}
          <div className="portal-actions">
            <button type="submit" className="primary" disabled={busy || !target}>
              {busy ? 'Changing…' : 'Change plan'}
            </button>
            <button type="button" className="secondary" onClick={onClose} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

interface ChangeSeatsDialogProps {
  subscription: CustomerSubscription;
  onClose: () => void;
  onChanged: (seats: number) => void;
}

/** Adding or removing seats of a seat-based plan, with what the plan then costs per period. */
function ChangeSeatsDialog({ subscription, onClose, onChanged }: ChangeSeatsDialogProps) {
  const { api } = usePortal();
  const { busy, problem, run } = useAction();
  const current = subscription.seats ?? minimumSeats;
  const [text, setText] = useState(String(current));
  const seats = Number(text);
  const valid = Number.isInteger(seats) && seats >= minimumSeats && seats !== current;
  const price = subscription.prices?.find((each) => each.amount_type === 'seat_based');
  const perSeat = price?.amount_type === 'seat_based' ? price.price_per_seat : null;
  return (
    <Dialog title="Change seats" onClose={onClose}>
      <form
        className="portal-stack"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!valid) return;
          const changed = await run(() => api.updateSubscription(subscription.id, { seats }));
          if (changed) onChanged(seats);
        }}
      >
        <div className="field">
          <label htmlFor="new-seats">Seats</label>
          <input
            id="new-seats"
            type="number"
            inputMode="numeric"
            min={minimumSeats}
            step={1}
            required
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        <p className="muted" data-testid="seats-price">
          Currently {current} seats, {formatMoney(subscription.amount, subscription.currency)}
          {perInterval(subscription)}.
          {perSeat !== null && valid
            ? ` With ${seats} seats: ${formatMoney(perSeat * seats, subscription.currency)}${perInterval(subscription)}.`
            : ''}{' '}
          The difference for the rest of this period is settled as the seller’s billing terms say.
        </p>
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="portal-actions">
          <button type="submit" className="primary" disabled={busy || !valid}>
            {busy ? 'Changing…' : 'Change seats'}
          </button>
          <button type="button" className="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
