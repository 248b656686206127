import type { Price } from './api';
import { formatMoney } from './money';

/** The prices a buyer can pick here: live ones with an amount known up front. */
export const staticPrices = (prices: Price[]) =>
  prices.filter(
    (price) =>
      !price.is_archived &&
      (price.amount_type === 'fixed' ||
        price.amount_type === 'custom' ||
        price.amount_type === 'free'),
  );

export function intervalText(price: Price) {
  return price.type === 'recurring' && price.recurring_interval
    ? ` / ${price.recurring_interval}`
    : '';
}

export function priceText(price: Price): string {
  switch (price.amount_type) {
    case 'fixed':
      return `${formatMoney(price.price_amount, price.price_currency)}${intervalText(price)}`;
    case 'custom':
      return 'Pay what you want';
    case 'free':
      return 'Free';
    default:
      return 'Usage-based';
  }
}
