import { useState } from 'react';
import { AddCardForm } from './CardForm';
import { Dialog } from './Dialog';
import { CardName, expiry } from './payments';
import { Loaded, useAction, usePortal, useResource } from './resource';

const deleteRefusals = {
  PaymentMethodInUseByActiveSubscription:
    'This card pays for an active subscription: add another card first, then remove this one.',
};

/**
 * The customer's saved cards: which one subscriptions use, adding one (optionally as the
 * default) and removing one.
 */
export function PaymentMethods() {
  const { api } = usePortal();
  const cards = useResource(async (portal) => {
    const [methods, customer] = await Promise.all([portal.paymentMethods(), portal.customer()]);
    return { methods: methods.items, defaultId: customer.default_payment_method_id ?? null };
  });
  const [adding, setAdding] = useState(false);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  const after = async (message: string) => {
    setNotice(message);
    await cards.reload();
  };

  return (
    <section aria-labelledby="payment-methods-title">
      <h2 id="payment-methods-title">Payment methods</h2>
      <Loaded resource={cards} what="your cards">
        {({ methods, defaultId }) => (
          <>
            {methods.length === 0 ? (
              <p className="portal-empty">No saved cards.</p>
            ) : (
              <ul className="portal-cards">
                {methods.map((method) => {
                  const isDefault = method.id === defaultId;
                  return (
                    <li key={method.id} className="portal-card portal-method">
                      <div>
                        <strong>
                          <CardName method={method} />
                        </strong>
                        {isDefault && <span className="portal-badge">Default</span>}
                        {expiry(method) && <p className="muted">Expires {expiry(method)}</p>}
                      </div>
                      <div className="portal-actions">
                        <button
                          type="button"
                          className="secondary"
                          disabled={action.busy}
                          onClick={async () => {
                            const removed = await action.run(
                              () => api.deletePaymentMethod(method.id),
                              deleteRefusals,
                            );
                            if (removed) await after('The card was removed.');
                          }}
                        >
                          Remove
                          <span className="visually-hidden">
                            : <CardName method={method} />
                          </span>
                        </button>
                      </div>
                    </li>
                  );
                })}
              </ul>
            )}
            {action.problem && (
              <p className="field-error" role="alert">
                {action.problem}
              </p>
            )}
            {notice && (
              <p className="portal-notice" role="status">
                {notice}
              </p>
            )}
            <button type="button" className="primary" onClick={() => setAdding(true)}>
              Add a card
            </button>
          </>
        )}
      </Loaded>
      {adding && (
        <Dialog title="Add a card" onClose={() => setAdding(false)}>
          {/* Stripe Elements (payment mode) asks for an amount to show; saving charges nothing. */}
          <AddCardForm
            amount={100}
            currency="usd"
            setDefault={false}
            onCancel={() => setAdding(false)}
            onAdded={async () => {
              setAdding(false);
              await after('The card was saved.');
            }}
          />
        </Dialog>
      )}
    </section>
  );
}
