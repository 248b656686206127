import { formatMoney } from '../../../domain/money.ts';

interface MoneyProps {
  /** Integer minor units (cents), as the API answers amounts. */
  amount: number;
  currency: string;
}

/** An amount with its currency (`$12.50`), aligned as numbers in tables. */
export function Money({ amount, currency }: MoneyProps) {
  return <span className="money">{formatMoney(amount, currency)}</span>;
}
