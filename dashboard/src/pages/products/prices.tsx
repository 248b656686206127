import type { RecurringInterval } from '../../../../domain/prices.ts';
import { Money } from '../../components/Money';
import type { Price } from './api';

const intervalAdjectives: Record<RecurringInterval, string> = {
  day: 'Daily',
  week: 'Weekly',
  month: 'Monthly',
  year: 'Yearly',
};

/** `One-time`, or how often the product bills (`Monthly`). */
export const billingLabel = (interval: RecurringInterval | null) =>
  interval ? intervalAdjectives[interval] : 'One-time';

/** `/ month` after a recurring amount; nothing after a one-time one. */
function Per({ interval }: { interval: RecurringInterval | null }) {
  return interval ? <span className="muted"> / {interval}</span> : null;
}

/** One price in words, its amounts through Money: `$12.00 / month`, `Pay what you want…`. */
export function PriceSummary({ price }: { price: Price }) {
  switch (price.amount_type) {
    case 'fixed':
      return (
        <span>
          <Money amount={price.price_amount} currency={price.price_currency} />
          <Per interval={price.recurring_interval} />
        </span>
      );
    case 'custom':
      return (
        <span>
          Pay what you want
          {price.minimum_amount != null && (
            <>
              , from <Money amount={price.minimum_amount} currency={price.price_currency} />
            </>
          )}
          {price.maximum_amount != null && (
            <>
              , up to <Money amount={price.maximum_amount} currency={price.price_currency} />
            </>
          )}
          {price.preset_amount != null && (
            <>
              {' '}
              (suggested <Money amount={price.preset_amount} currency={price.price_currency} />)
            </>
          )}
        </span>
      );
    case 'free':
      return <span>Free</span>;
    case 'metered_unit':
      return (
        <span>
          {price.unit_amount}¢ ({price.price_currency.toUpperCase()}) per unit of {price.meter.name}
          {price.cap_amount != null && (
            <>
              , capped at <Money amount={price.cap_amount} currency={price.price_currency} />
            </>
          )}
          <Per interval={price.recurring_interval} />
        </span>
      );
    case 'seat_based':
      return (
        <span>
          <Money amount={price.price_per_seat} currency={price.price_currency} /> per seat
          <Per interval={price.recurring_interval} />
        </span>
      );
  }
}

/** A product's prices, one per line. */
export function PriceList({ prices }: { prices: Price[] }) {
  if (prices.length === 0) return <span className="muted">No price</span>;
  return (
    <ul className="price-list">
      {prices.map((price) => (
        <li key={price.id}>
          <PriceSummary price={price} />
        </li>
      ))}
    </ul>
  );
}
