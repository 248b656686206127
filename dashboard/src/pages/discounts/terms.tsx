import { Money } from '../../components/Money';
import type { Discount } from './api';

/** What the discount takes off: `15%` or `$5.00`. */
export function Reduction({ discount }: { discount: Discount }) {
  if (discount.type === 'fixed')
    return <Money amount={discount.amount} currency={discount.currency} />;
  return <>{discount.basis_points / 100}%</>;
}

/** For how long: `once`, `forever`, `3 months`. */
export function durationLabel(discount: Discount): string {
  if (discount.duration !== 'repeating') return discount.duration;
  const months = discount.duration_in_months;
  return `${months} month${months === 1 ? '' : 's'}`;
}

/** Redemptions so far, over the limit when there is one. */
export const redemptionsLabel = (discount: Discount) =>
  discount.max_redemptions === null
    ? String(discount.redemptions_count)
    : `${discount.redemptions_count} / ${discount.max_redemptions}`;
