import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import {
  type ProrationBehavior,
  productChangeInput,
  prorationBehaviors,
} from '../../../../domain/subscriptions.ts';
import { ApiError, api, type FieldErrors, type ListResource } from '../../api/client';
import { useSignedIn } from '../../auth/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Section } from '../../components/EntityPage';
import { Field } from '../../components/Form';
import { Money } from '../../components/Money';
import type { Product } from '../products/api';
import { prorationLabels, type Subscription, subscriptionsApi, subscriptionsKey } from './api';
import { type PlanChangePreview, previewPlanChange } from './planChange';
import './subscriptions.css';

interface ChangePlanSectionProps {
  subscription: Subscription;
  /** The subscription's time: its test clock's frozen time, else now. */
  now: () => Date;
}

/** The recurring products a subscription can move to: the first hundred by name. */
function usePlanOptions(subscription: Subscription) {
  return useQuery({
    queryKey: ['products', 'plans', subscription.recurring_interval],
    queryFn: ({ signal }) =>
      api.get<ListResource<Product>>('/v1/products/', {
        query: { is_recurring: true, is_archived: false, limit: 100, sorting: 'name' },
        signal,
      }),
    select: (list) =>
      list.items.filter(
        (product) =>
          product.recurring_interval === subscription.recurring_interval &&
          product.id !== subscription.product_id,
      ),
  });
}

/** The organization's proration behaviour: what the API applies when the change names none. */
export function useDefaultBehavior(): ProrationBehavior | undefined {
  const { organization } = useSignedIn();
  const settings = useQuery({
    queryKey: ['organization', organization.id, 'settings'],
    queryFn: ({ signal }) =>
      api.get<{ subscription_settings: { proration_behavior: ProrationBehavior } }>(
        `/v1/organizations/${organization.id}`,
        { signal },
      ),
  });
  return settings.data?.subscription_settings.proration_behavior;
}

/**
 * Moves the subscription to another product: the proration is previewed as the server will
 * compute it, confirmed, then sent; a refusal about the product shows next to it.
 */
export function ChangePlanSection({ subscription, now }: ChangePlanSectionProps) {
  const queryClient = useQueryClient();
  const plans = usePlanOptions(subscription);
  const defaultBehavior = useDefaultBehavior();
  const [productId, setProductId] = useState('');
  const [chosenBehavior, setBehavior] = useState<ProrationBehavior | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<PlanChangePreview | null>(null);
  const behavior = chosenBehavior ?? defaultBehavior ?? 'prorate';
  const product = plans.data?.find((plan) => plan.id === productId);
  const preview = product && previewPlanChange(subscription, product, behavior, now());

  const review = (event: FormEvent) => {
    event.preventDefault();
    const checked = productChangeInput.safeParse({
      product_id: productId,
      proration_behavior: behavior,
    });
    if (!checked.success || !preview) return setErrors({ product_id: 'Choose a product.' });
    if (!preview.ok) return setErrors({ product_id: preview.refusal });
    setErrors({});
    setConfirming(preview);
  };

  const send = async () => {
    try {
      await subscriptionsApi.changeProduct(subscription.id, productId, behavior);
    } catch (failure) {
      if (failure instanceof ApiError && failure.fieldErrors.product_id) {
        setErrors(failure.fieldErrors);
      }
      throw failure;
    }
    setProductId('');
    await queryClient.invalidateQueries({ queryKey: subscriptionsKey });
  };

  if (plans.isError) {
    return (
      <Section title="Change plan">
        <p className="error-message" role="alert">
          Could not load the products: {plans.error.message}
        </p>
      </Section>
    );
  }

  return (
    <Section title="Change plan">
      <form className="form" onSubmit={review} noValidate aria-label="Change plan">
        <Field name="product_id" label="New product" error={errors.product_id} required>
          {(props) => (
            <select
              {...props}
              value={productId}
              disabled={plans.isPending}
              onChange={(event) => setProductId(event.target.value)}
            >
              <option value="">
                {plans.isPending
                  ? 'Loading products…'
                  : plans.data.length
                    ? 'Choose a product'
                    : `No other product renews every ${subscription.recurring_interval}`}
              </option>
              {plans.data?.map((plan) => (
                <option key={plan.id} value={plan.id}>
                  {plan.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ProrationField value={behavior} onChange={setBehavior} error={errors.proration_behavior} />
        {preview?.ok && <ProrationPreview preview={preview} currency={subscription.currency} />}
        <div className="form-actions">
          <button type="submit" className="button button-primary">
            Review change
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming !== null}
        title={`Move to ${product?.name ?? 'the new product'}?`}
        confirmLabel="Change plan"
        onConfirm={send}
        onClose={() => setConfirming(null)}
      >
        {confirming?.ok && (
          <ProrationPreview preview={confirming} currency={subscription.currency} />
        )}
      </ConfirmDialog>
    </Section>
  );
}

/** How the difference of a change is billed: now, or with the next renewal. */
export function ProrationField({
  value,
  onChange,
  error,
}: {
  value: ProrationBehavior;
  onChange: (behavior: ProrationBehavior) => void;
  error?: string | undefined;
}) {
  return (
    <Field name="proration_behavior" label="Proration" error={error} required>
      {(props) => (
        <select
          {...props}
          value={value}
          onChange={(event) => onChange(event.target.value as ProrationBehavior)}
        >
          {prorationBehaviors.map((behavior) => (
            <option key={behavior} value={behavior}>
              {prorationLabels[behavior]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function ProrationPreview({
  preview,
  currency,
}: {
  preview: Extract<PlanChangePreview, { ok: true }>;
  currency: string;
}) {
  const money = (amount: number) => <Money amount={amount} currency={currency} />;
  return (
    <div className="proration-preview" aria-live="polite">
      <table className="data-table">
        <caption>Proration preview</caption>
        <tbody>
          {preview.lines.map((line) => (
            <tr key={line.label}>
              <th scope="row">{line.label}</th>
              <td className="col-amount">{money(line.amount)}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">Charged now</th>
            <td className="col-amount">{money(preview.chargedNow)}</td>
          </tr>
          <tr>
            <th scope="row">
              {preview.carriedToRenewal < 0
                ? 'Credited to the customer balance (used by the next order)'
                : 'Added to the next renewal'}
            </th>
            <td className="col-amount">{money(preview.carriedToRenewal)}</td>
          </tr>
          <tr>
            <th scope="row">Each period from now on</th>
            <td className="col-amount">{money(preview.newAmount)}</td>
          </tr>
        </tbody>
      </table>
      {preview.lines.length === 0 && (
        <p className="muted">Nothing to prorate: the subscription is in its trial.</p>
      )}
    </div>
  );
}
