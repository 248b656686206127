import { useEffect, useState } from 'react';
import { CheckoutApiError, type CheckoutPublic, getCheckout, listGrants } from './api';
import { type Granted, GrantedBenefit, grantsWithoutBuyer, withLicenseKey } from './granted';
import { formatMoney } from './money';
import { checkoutChargeTerms, longDate, nextBillingDateOf } from './prices';
import { sessionToken } from './session';

/** How long the page waits for the order and for the benefits to be granted. */
const pollIntervalMs = 1000;
const maximumPolls = 120;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the buyer got: paid for it, started a trial of it, or got it free. */
function purchaseSummary(checkout: CheckoutPublic): string {
  const { name } = checkout.product;
  if (checkout.is_payment_required) {
    return `You paid ${formatMoney(checkout.amount_due, checkout.currency)} for ${name}.`;
  }
  if (checkout.active_trial_interval) return `Your free trial of ${name} has started.`;
  return `${name} is yours.`;
}

/**
 * The seller's customer portal: opened with the buyer's session when the confirm gave one
 * (the portal takes it out of the address), else at its sign-in page.
 */
function portalHref(checkout: CheckoutPublic, token: string | null): string {
  const path = `/portal/${encodeURIComponent(checkout.organization.slug)}`;
  return token ? `${path}?${new URLSearchParams({ customer_session_token: token })}` : path;
}

interface ConfirmationPageProps {
  clientSecret: string;
  onRetry: () => void;
}

/**
 * After the confirm: waits until the checkout succeeded (or failed), then says what was bought,
 * when a subscription is next billed and the way to the customer portal, and lists the benefits
 * the order granted, read with the buyer's customer session, license keys in full.
 */
export function ConfirmationPage({ clientSecret, onRetry }: ConfirmationPageProps) {
  const [checkout, setCheckout] = useState<CheckoutPublic | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [granted, setGranted] = useState<Granted[] | null>(null);
  const [grantsSettled, setGrantsSettled] = useState(false);
  // The purchase is this page's visit, near enough to date the first renewal by.
  const [purchasedAt] = useState(() => new Date());
  const token = sessionToken(clientSecret);

  useEffect(() => {
    let stopped = false;
    (async () => {
      let current: CheckoutPublic | null = null;
      for (let poll = 0; poll < maximumPolls && !stopped; poll += 1) {
        try {
          current = await getCheckout(clientSecret);
        } catch (error) {
          if (error instanceof CheckoutApiError && error.status < 500) {
            setProblem(error.status === 410 ? 'This checkout has expired.' : error.message);
            return;
          }
        }
        if (stopped) return;
        if (current) setCheckout(current);
        if (current && current.status !== 'confirmed' && current.status !== 'open') break;
        await sleep(pollIntervalMs);
      }
      if (stopped || current?.status !== 'succeeded' || !token) return;
      const expected = current.product.benefits.length;
      for (let poll = 0; poll < maximumPolls && !stopped; poll += 1) {
        try {
          const page = await listGrants(token, current.id);
          const settled =
            page.items.length >= expected &&
            page.items.every(
              (grant) => grant.is_granted || !grantsWithoutBuyer.has(grant.benefit.type),
            );
          const withKeys = await Promise.all(
            page.items.map((grant) => withLicenseKey(token, grant)),
          );
          if (stopped) return;
          setGranted(withKeys);
          if (settled) {
            setGrantsSettled(true);
            return;
          }
        } catch {
          // Read again at the next poll: the session or the grants may not be there yet.
        }
        await sleep(pollIntervalMs);
      }
      setGrantsSettled(true);
    })();
    return () => {
      stopped = true;
    };
  }, [clientSecret, token]);

  if (problem) {
    return (
      <main className="confirmation">
        <h1>Checkout unavailable</h1>
        <p role="alert">{problem}</p>
      </main>
    );
  }
  if (!checkout || checkout.status === 'confirmed' || checkout.status === 'open') {
    return (
      <main className="confirmation" aria-busy="true">
        <h1>Processing your payment…</h1>
        <p role="status">This takes a few seconds. Please keep this page open.</p>
      </main>
    );
  }
  if (checkout.status !== 'succeeded') {
    return (
      <main className="confirmation">
        <h1>Payment failed</h1>
        <p role="alert">{checkout.payment_error?.message ?? 'The payment did not go through.'}</p>
        {checkout.status === 'failed' && (
          <button type="button" className="primary" onClick={onRetry}>
            Try again
          </button>
        )}
      </main>
    );
  }
  const nextBilling = nextBillingDateOf(checkout, purchasedAt);
  const terms = checkoutChargeTerms(checkout);
  return (
    <main className="confirmation">
      <p className="organization">{checkout.organization.name}</p>
      <h1>Thank you for your purchase</h1>
      <p role="status">{purchaseSummary(checkout)}</p>
      {nextBilling && (
        <dl className="next-billing">
          <dt>Next billing date</dt>
          <dd data-testid="next-billing-date">{longDate(nextBilling)}</dd>
        </dl>
      )}
      {terms && <p className="charge-terms">{terms}</p>}
      <a className="button-link" href={portalHref(checkout, token)}>
        {nextBilling ? 'Manage your subscription' : 'Open your customer portal'}
      </a>
      {checkout.product.benefits.length > 0 && (
        <section aria-labelledby="benefits-title" aria-busy={!grantsSettled}>
          <h2 id="benefits-title">Your benefits</h2>
          {!token ? (
            <p>Your benefits are waiting in your customer portal.</p>
          ) : (
            <ul className="granted-benefits">
              {(granted ?? []).map(({ grant, licenseKey }) => (
                <GrantedBenefit key={grant.id} grant={grant} licenseKey={licenseKey} />
              ))}
            </ul>
          )}
          {token && !grantsSettled && <p role="status">Granting your benefits…</p>}
        </section>
      )}
    </main>
  );
}
